// Framed TCP connections over standalone Asio (Debian's libasio-dev), with one network thread per NetIo: the
// network thread reads and writes every socket; the game thread hands frames in and takes received frames out
// through queues, so no game state is touched by the network thread and no socket call blocks the game thread.
//
// A frame is a uint32 little-endian length L then L bytes (net/protocol.h). A received frame longer than the
// receiver's limit, or of length 0, ends reading on that connection and is reported as a Problem event naming its
// length (the owner sends its reason and closes). Sending never blocks: frames queue per connection; send() refuses
// a frame that would take the queue past its limit (the owner then drops the connection with a reason: a client that
// falls too far behind must not hold the others back), and write_waiting_ms() tells how long the socket has taken
// the current write (a client that stopped reading).
//
// Threads: every method may be called from any thread; events are taken by one consumer.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "voxen/core/error.h"

namespace voxen::net {

namespace detail {
struct IoImpl;
struct LinkImpl;
struct ListenerImpl;
}  // namespace detail

/// An Asio io_context and the one thread that runs it. Outlives every link and listener made on it.
class NetIo {
 public:
  NetIo();
  /// Stops the thread (links still open are closed).
  ~NetIo();
  NetIo(const NetIo&) = delete;
  NetIo& operator=(const NetIo&) = delete;
  detail::IoImpl& impl() { return *m_impl; }

 private:
  std::unique_ptr<detail::IoImpl> m_impl;
};

/// Something that happened on a connection, in the order it happened.
struct NetEvent {
  enum class Kind : uint8_t {
    kOpened,   // a connection was accepted; text: the peer's address "ip:port"
    kFrame,    // a frame arrived; text: its body (type + payload)
    kProblem,  // a frame broke the framing (length 0 or over the limit); text: why; nothing more is read
    kClosed,   // the connection is gone; text: why ("closed by the peer", a socket error, "closed")
  };
  Kind kind = Kind::kFrame;
  uint64_t conn = 0;  // the connection's id (1, 2, ... per listener; a client link's events carry 0)
  std::string text;
};

/// Byte and frame counters of one connection (frames and their 4-byte length prefixes).
struct LinkStats {
  uint64_t bytes_in = 0, bytes_out = 0, frames_in = 0, frames_out = 0;
};

/// Limits of one side of a connection.
struct LinkLimits {
  size_t max_frame = 4096;                  // longest frame body accepted from the peer
  size_t max_queued_bytes = size_t{16} << 20;  // send() refuses frames past this many unsent bytes
  int socket_send_buffer = 0;               // SO_SNDBUF of accepted sockets in bytes (0: the system's default)
};

/// A thread-safe FIFO of events with a blocking take.
class EventQueue {
 public:
  EventQueue();
  ~EventQueue();
  void push(NetEvent e);
  /// Moves every queued event out; waits up to `wait` for the first when none is queued (0: does not wait).
  std::vector<NetEvent> take(std::chrono::microseconds wait = std::chrono::microseconds(0));
  /// Makes a waiting take() return now (with what is queued, maybe nothing).
  void wake();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// The server side: listens on every given address and port, one id per accepted connection; all events go to
/// one queue.
class Listener {
 public:
  /// Listens on each address (IPv4 or IPv6 literal, or "localhost") at `port` (0: the system picks one, the same
  /// for every address after the first). Errors: an address that does not parse, a port in use (naming both).
  static Result<std::unique_ptr<Listener>> listen(NetIo& io, const std::vector<std::string>& addresses, uint16_t port,
                                                  LinkLimits limits, EventQueue& events);
  ~Listener();
  /// The port listened on.
  uint16_t port() const;
  /// "ADDR:PORT" of each address listened on.
  std::vector<std::string> endpoints() const;
  /// Queues a frame (protocol::encode's bytes) for a connection. False, with nothing queued, when the connection is
  /// gone or closing, or the frame would take its unsent bytes past max_queued_bytes.
  bool send(uint64_t conn, std::string frame);
  /// Queues `last_frame` (may be empty) and closes the connection once it is written, or after 2 s; with
  /// keep_queued false the unsent frames are dropped first (all but those being written: a client that fell behind
  /// gets its reason sooner). Nothing more is read from it. A kClosed event follows.
  void close(uint64_t conn, std::string last_frame, bool keep_queued = false);
  /// True while the connection is open and not closing.
  bool is_open(uint64_t conn) const;
  /// Unsent bytes of a connection (0 when gone).
  size_t queued_bytes(uint64_t conn) const;
  /// How long the current write of a connection has waited for the socket (0 when none is pending).
  int64_t write_waiting_ms(uint64_t conn) const;
  LinkStats stats(uint64_t conn) const;
  /// Stops accepting and closes every connection.
  void shutdown();

 private:
  Listener() = default;
  std::shared_ptr<detail::ListenerImpl> m_shared;  // also held by the io thread's pending handlers; null after shutdown
  uint16_t m_port = 0;
  std::vector<std::string> m_endpoints;
};

/// The client side: one connection to a server with its own event queue.
class ClientLink {
 public:
  /// Connects to host:port (a name or an address) within `timeout`. Errors: the name does not resolve, the
  /// connection is refused or times out (the message names host and port).
  static Result<std::unique_ptr<ClientLink>> connect(NetIo& io, const std::string& host, uint16_t port, LinkLimits limits,
                                                     std::chrono::milliseconds timeout);
  ~ClientLink();
  /// Queues a frame; false when closed or over the queue limit.
  bool send(std::string frame);
  /// Takes the received events (kFrame, kProblem, kClosed); waits up to `wait` for the first.
  std::vector<NetEvent> take(std::chrono::microseconds wait = std::chrono::microseconds(0));
  /// Closes the connection after the queued frames are written (at most 2 s).
  void close();
  bool open() const;
  /// True once the connection is closed for good (after close(): everything written and the peer closed too, or
  /// the 2 s passed).
  bool closed() const;
  LinkStats stats() const;
  size_t queued_bytes() const;

 private:
  ClientLink();
  std::shared_ptr<EventQueue> m_events;  // shared with the link, which may finish after the ClientLink is gone
  std::shared_ptr<detail::LinkImpl> m_link;
};

/// Splits "HOST:PORT" ("[v6]:PORT" for IPv6). Errors: no port, a port outside 1..65535, a host with a colon outside
/// brackets.
Result<std::pair<std::string, uint16_t>> parse_host_port(const std::string& text);

}  // namespace voxen::net
