#include "voxen/net/transport.h"

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include <asio.hpp>

namespace voxen::net {

namespace detail {

struct IoImpl {
  asio::io_context ctx;
  asio::executor_work_guard<asio::io_context::executor_type> guard{ctx.get_executor()};
  std::thread thread;
};

/// One framed connection. Socket calls run on the io thread only; send()/close() take the mutex and post.
struct LinkImpl : std::enable_shared_from_this<LinkImpl> {
  LinkImpl(asio::io_context& ctx, asio::ip::tcp::socket s, uint64_t link_id, LinkLimits lim, EventQueue* queue)
      : io(ctx), socket(std::move(s)), close_timer(ctx), id(link_id), limits(lim), events(queue) {}

  asio::io_context& io;
  asio::ip::tcp::socket socket;
  asio::steady_timer close_timer;
  uint64_t id;
  LinkLimits limits;
  EventQueue* events;
  std::shared_ptr<EventQueue> owned_events;  // a client link's queue: kept while handlers may still push to it
  std::function<void(uint64_t)> on_finish;  // the listener forgets the link

  // read side: io thread only
  std::vector<char> rbuf = std::vector<char>(size_t{64} << 10);
  size_t rlen = 0;

  mutable std::mutex mu;
  std::deque<std::string> queue;   // unsent frames
  std::vector<std::string> in_flight;
  size_t queued = 0;               // bytes in queue + in_flight
  bool writing = false, closing = false, closed = false;
  std::chrono::steady_clock::time_point write_started;
  LinkStats stats;

  void start() {
    asio::error_code ignored;
    socket.set_option(asio::ip::tcp::no_delay(true), ignored);
    if (limits.socket_send_buffer > 0) socket.set_option(asio::socket_base::send_buffer_size(limits.socket_send_buffer), ignored);
    read_more();
  }

  void read_more() {
    if (rlen == rbuf.size()) rbuf.resize(rbuf.size() * 2);
    auto self = shared_from_this();
    socket.async_read_some(asio::buffer(rbuf.data() + rlen, rbuf.size() - rlen), [self](const asio::error_code& ec, size_t n) {
      if (ec) {
        self->finish(ec == asio::error::eof ? "closed by the peer" : ec == asio::error::operation_aborted ? "closed" : "socket error: " + ec.message());
        return;
      }
      self->rlen += n;
      {
        std::lock_guard lock(self->mu);
        self->stats.bytes_in += n;
      }
      if (self->parse()) self->read_more();
    });
  }

  /// Hands every whole frame to the queue; false when the framing broke (reading stops).
  bool parse() {
    {
      std::lock_guard lock(mu);
      if (closed || closing) return false;  // nothing more is handed over once the owner closed it
    }
    size_t at = 0;
    while (rlen - at >= kHeader) {
      uint32_t len = 0;
      for (int i = 0; i < 4; ++i) len |= static_cast<uint32_t>(static_cast<uint8_t>(rbuf[at + static_cast<size_t>(i)])) << (8 * i);
      if (len == 0 || len > limits.max_frame) {
        events->push(NetEvent{NetEvent::Kind::kProblem, id,
                              len == 0 ? std::string("a frame of length 0")
                                       : "a frame of " + std::to_string(len) + " bytes, over the " + std::to_string(limits.max_frame) + "-byte limit"});
        return false;
      }
      if (rlen - at < kHeader + len) {
        if (rbuf.size() < kHeader + len) {  // make room for the whole frame
          std::memmove(rbuf.data(), rbuf.data() + at, rlen - at);
          rlen -= at;
          rbuf.resize(kHeader + len);
          return true;
        }
        break;
      }
      events->push(NetEvent{NetEvent::Kind::kFrame, id, std::string(rbuf.data() + at + kHeader, len)});
      {
        std::lock_guard lock(mu);
        ++stats.frames_in;
      }
      at += kHeader + len;
    }
    if (at > 0) {
      std::memmove(rbuf.data(), rbuf.data() + at, rlen - at);
      rlen -= at;
    }
    if (rbuf.size() > (size_t{256} << 10) && rlen < (size_t{64} << 10)) rbuf.resize(size_t{64} << 10);  // a big frame passed
    return true;
  }

  bool send(std::string frame) {
    std::lock_guard lock(mu);
    if (closing || closed) return false;
    if (queued + frame.size() > limits.max_queued_bytes) return false;
    queued += frame.size();
    queue.push_back(std::move(frame));
    kick_locked();
    return true;
  }

  void kick_locked() {
    if (writing) return;
    writing = true;
    asio::post(io, [self = shared_from_this()] { self->write_next(); });
  }

  void write_next() {
    std::vector<asio::const_buffer> bufs;
    {
      std::lock_guard lock(mu);
      in_flight.clear();
      size_t bytes = 0;
      while (!queue.empty() && in_flight.size() < 256 && bytes < (size_t{1} << 20)) {
        bytes += queue.front().size();
        in_flight.push_back(std::move(queue.front()));
        queue.pop_front();
      }
      if (in_flight.empty()) {
        writing = false;
        if (closing) {
          asio::error_code ignored;
          socket.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
        }
        if (!closing) return;
      } else {
        write_started = std::chrono::steady_clock::now();
        for (const std::string& f : in_flight) bufs.emplace_back(asio::buffer(f));
      }
    }
    if (bufs.empty()) {  // closing and everything written: wait for the peer to close, at most the close timer
      return;
    }
    asio::async_write(socket, bufs, [self = shared_from_this()](const asio::error_code& ec, size_t n) {
      {
        std::lock_guard lock(self->mu);
        self->stats.bytes_out += n;
        self->stats.frames_out += self->in_flight.size();
        self->queued -= std::min(self->queued, n);
        self->write_started = {};
      }
      if (ec) {
        self->finish(ec == asio::error::operation_aborted ? "closed" : "socket error: " + ec.message());
        return;
      }
      self->write_next();
    });
  }

  void close(std::string last_frame, bool keep_queued) {
    std::lock_guard lock(mu);
    if (closing || closed) return;
    closing = true;
    if (!keep_queued) {
      size_t flight = 0;
      if (writing)
        for (const std::string& f : in_flight) flight += f.size();
      queue.clear();
      queued = flight;
    }
    if (!last_frame.empty()) {
      queued += last_frame.size();
      queue.push_back(std::move(last_frame));
    }
    auto self = shared_from_this();
    asio::post(io, [self] {
      self->close_timer.expires_after(std::chrono::seconds(2));
      self->close_timer.async_wait([self](const asio::error_code&) { self->finish("closed"); });
    });
    kick_locked();
  }

  /// io thread: closes the socket once and reports it.
  void finish(const std::string& why) {
    {
      std::lock_guard lock(mu);
      if (closed) return;
      closed = true;
      closing = true;
      queue.clear();
    }
    asio::error_code ignored;
    close_timer.cancel();
    socket.close(ignored);
    events->push(NetEvent{NetEvent::Kind::kClosed, id, why});
    if (on_finish) on_finish(id);
  }

  static constexpr size_t kHeader = 4;
};

struct ListenerImpl : std::enable_shared_from_this<ListenerImpl> {
  ListenerImpl(asio::io_context& ctx, LinkLimits lim, EventQueue& queue) : io(ctx), limits(lim), events(queue) {}
  asio::io_context& io;
  LinkLimits limits;
  EventQueue& events;
  std::vector<std::unique_ptr<asio::ip::tcp::acceptor>> acceptors;
  std::vector<std::string> endpoints;
  uint16_t port = 0;
  mutable std::mutex mu;
  std::map<uint64_t, std::shared_ptr<LinkImpl>> links;
  uint64_t next_id = 1;
  bool stopped = false;

  void accept(asio::ip::tcp::acceptor& acc) {
    auto self = shared_from_this();
    acc.async_accept([self, &acc](const asio::error_code& ec, asio::ip::tcp::socket s) {
      if (ec == asio::error::operation_aborted || self->stopped) return;
      if (ec) {  // out of file descriptors, say: wait before accepting again instead of spinning
        auto timer = std::make_shared<asio::steady_timer>(self->io, std::chrono::milliseconds(100));
        timer->async_wait([self, &acc, timer](const asio::error_code& e) {
          if (!e && !self->stopped) self->accept(acc);
        });
        return;
      }
      {
        asio::error_code e2;
        const auto ep = s.remote_endpoint(e2);
        std::string peer = e2 ? std::string("?") : ep.address().to_string() + ":" + std::to_string(ep.port());
        std::shared_ptr<LinkImpl> link;
        {
          std::lock_guard lock(self->mu);
          const uint64_t id = self->next_id++;
          link = std::make_shared<LinkImpl>(self->io, std::move(s), id, self->limits, &self->events);
          std::weak_ptr<ListenerImpl> weak = self;
          link->on_finish = [weak](uint64_t gone) {
            if (auto l = weak.lock()) {
              std::lock_guard lk(l->mu);
              l->links.erase(gone);
            }
          };
          self->links[id] = link;
        }
        self->events.push(NetEvent{NetEvent::Kind::kOpened, link->id, peer});
        link->start();
      }
      self->accept(acc);  // errors such as too many open files: keep accepting
    });
  }

  std::shared_ptr<LinkImpl> find(uint64_t conn) const {
    std::lock_guard lock(mu);
    auto it = links.find(conn);
    return it == links.end() ? nullptr : it->second;
  }
};

}  // namespace detail

// ---- NetIo -------------------------------------------------------------------------------------------------------

NetIo::NetIo() : m_impl(std::make_unique<detail::IoImpl>()) {
  m_impl->thread = std::thread([io = m_impl.get()] { io->ctx.run(); });
}

NetIo::~NetIo() {
  m_impl->guard.reset();
  m_impl->ctx.stop();
  m_impl->thread.join();
}

// ---- EventQueue --------------------------------------------------------------------------------------------------

struct EventQueue::Impl {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<NetEvent> q;
  bool woken = false;
};

EventQueue::EventQueue() : m_impl(std::make_unique<Impl>()) {}
EventQueue::~EventQueue() = default;

void EventQueue::push(NetEvent e) {
  {
    std::lock_guard lock(m_impl->mu);
    m_impl->q.push_back(std::move(e));
  }
  m_impl->cv.notify_one();
}

std::vector<NetEvent> EventQueue::take(std::chrono::microseconds wait) {
  std::unique_lock lock(m_impl->mu);
  if (m_impl->q.empty() && wait.count() > 0)
    m_impl->cv.wait_for(lock, wait, [&] { return !m_impl->q.empty() || m_impl->woken; });
  m_impl->woken = false;
  std::vector<NetEvent> out(std::make_move_iterator(m_impl->q.begin()), std::make_move_iterator(m_impl->q.end()));
  m_impl->q.clear();
  return out;
}

void EventQueue::wake() {
  {
    std::lock_guard lock(m_impl->mu);
    m_impl->woken = true;
  }
  m_impl->cv.notify_all();
}

// ---- Listener ----------------------------------------------------------------------------------------------------

Result<std::unique_ptr<Listener>> Listener::listen(NetIo& io, const std::vector<std::string>& addresses, uint16_t port,
                                                   LinkLimits limits, EventQueue& events) {
  auto impl = std::make_shared<detail::ListenerImpl>(io.impl().ctx, limits, events);
  if (addresses.empty()) return Error{"no address to listen on"};
  uint16_t chosen = port;
  for (const std::string& a : addresses) {
    asio::error_code ec;
    asio::ip::address addr = a == "localhost" ? asio::ip::address(asio::ip::address_v4::loopback()) : asio::ip::make_address(a, ec);
    if (ec) return Error{"--bind " + a + ": not an IPv4 or IPv6 address"};
    auto acc = std::make_unique<asio::ip::tcp::acceptor>(io.impl().ctx);
    const asio::ip::tcp::endpoint ep(addr, chosen);
    acc->open(ep.protocol(), ec);
    if (!ec) acc->set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
    if (!ec && addr.is_v6()) acc->set_option(asio::ip::v6_only(true), ec);
    if (!ec) acc->bind(ep, ec);
    if (!ec) acc->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return Error{"cannot listen on " + a + " port " + std::to_string(chosen) + ": " + ec.message()};
    chosen = acc->local_endpoint().port();
    impl->endpoints.push_back((addr.is_v6() ? "[" + addr.to_string() + "]" : addr.to_string()) + ":" + std::to_string(chosen));
    impl->acceptors.push_back(std::move(acc));
  }
  impl->port = chosen;
  for (auto& acc : impl->acceptors) {
    asio::post(io.impl().ctx, [impl, a = acc.get()] { impl->accept(*a); });
  }
  std::unique_ptr<Listener> l(new Listener());
  l->m_shared = impl;
  l->m_port = impl->port;
  l->m_endpoints = impl->endpoints;
  return l;
}

Listener::~Listener() { shutdown(); }

uint16_t Listener::port() const { return m_port; }

std::vector<std::string> Listener::endpoints() const { return m_endpoints; }

bool Listener::send(uint64_t conn, std::string frame) {
  if (!m_shared) return false;
  auto link = m_shared->find(conn);
  return link && link->send(std::move(frame));
}

void Listener::close(uint64_t conn, std::string last_frame, bool keep_queued) {
  if (!m_shared) return;
  if (auto link = m_shared->find(conn)) link->close(std::move(last_frame), keep_queued);
}

bool Listener::is_open(uint64_t conn) const {
  if (!m_shared) return false;
  auto link = m_shared->find(conn);
  if (!link) return false;
  std::lock_guard lock(link->mu);
  return !link->closing && !link->closed;
}

size_t Listener::queued_bytes(uint64_t conn) const {
  if (!m_shared) return 0;
  auto link = m_shared->find(conn);
  if (!link) return 0;
  std::lock_guard lock(link->mu);
  return link->queued;
}

int64_t Listener::write_waiting_ms(uint64_t conn) const {
  if (!m_shared) return 0;
  auto link = m_shared->find(conn);
  if (!link) return 0;
  std::lock_guard lock(link->mu);
  if (link->write_started == std::chrono::steady_clock::time_point{}) return 0;
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - link->write_started).count();
}

LinkStats Listener::stats(uint64_t conn) const {
  if (!m_shared) return {};
  auto link = m_shared->find(conn);
  if (!link) return {};
  std::lock_guard lock(link->mu);
  return link->stats;
}

void Listener::shutdown() {
  if (!m_shared) return;
  auto impl = m_shared;
  auto done = std::make_shared<std::promise<void>>();  // shared: the io thread may run this after the wait gave up
  asio::post(impl->io, [impl, done] {
    impl->stopped = true;
    for (auto& a : impl->acceptors) {
      asio::error_code ignored;
      a->close(ignored);
    }
    std::vector<std::shared_ptr<detail::LinkImpl>> links;
    {
      std::lock_guard lock(impl->mu);
      for (auto& [id, l] : impl->links) links.push_back(l);
    }
    for (auto& l : links) l->finish("server shut down");
    done->set_value();
  });
  // The io thread may already be stopped (NetIo destroyed first is the caller's bug); wait a bounded time.
  done->get_future().wait_for(std::chrono::seconds(5));
  m_shared.reset();
}

// ---- ClientLink --------------------------------------------------------------------------------------------------

ClientLink::ClientLink() : m_events(std::make_shared<EventQueue>()) {}

ClientLink::~ClientLink() {
  if (!m_link) return;
  {
    std::lock_guard lock(m_link->mu);
    if (m_link->closing) return;  // close() was asked: its frames go out, its timer ends it (holding the link)
  }
  auto link = m_link;
  asio::post(link->io, [link] { link->finish("closed"); });
}

Result<std::unique_ptr<ClientLink>> ClientLink::connect(NetIo& io, const std::string& host, uint16_t port, LinkLimits limits,
                                                        std::chrono::milliseconds timeout) {
  asio::io_context& ctx = io.impl().ctx;
  asio::ip::tcp::resolver resolver(ctx);
  asio::error_code ec;
  auto results = resolver.resolve(host, std::to_string(port), ec);
  if (ec || results.empty()) return Error{"cannot resolve " + host + ": " + (ec ? ec.message() : std::string("no address"))};
  std::unique_ptr<ClientLink> c(new ClientLink());
  auto link = std::make_shared<detail::LinkImpl>(ctx, asio::ip::tcp::socket(ctx), 0, limits, c->m_events.get());
  link->owned_events = c->m_events;
  auto result = std::make_shared<std::promise<asio::error_code>>();
  auto fut = result->get_future();
  asio::post(ctx, [link, results, result] {
    asio::async_connect(link->socket, results, [result](const asio::error_code& e, const asio::ip::tcp::endpoint&) { result->set_value(e); });
  });
  if (fut.wait_for(timeout) != std::future_status::ready) {
    asio::post(ctx, [link] {
      asio::error_code ignored;
      link->socket.close(ignored);
    });
    fut.wait();
    return Error{"cannot connect to " + host + ":" + std::to_string(port) + ": no answer within " + std::to_string(timeout.count()) + " ms"};
  }
  if (auto e = fut.get()) return Error{"cannot connect to " + host + ":" + std::to_string(port) + ": " + e.message()};
  asio::post(ctx, [link] { link->start(); });
  c->m_link = link;
  return c;
}

bool ClientLink::send(std::string frame) { return m_link->send(std::move(frame)); }

std::vector<NetEvent> ClientLink::take(std::chrono::microseconds wait) { return m_events->take(wait); }

void ClientLink::close() { m_link->close(std::string(), /*keep_queued=*/true); }

bool ClientLink::open() const {
  std::lock_guard lock(m_link->mu);
  return !m_link->closed && !m_link->closing;
}

bool ClientLink::closed() const {
  std::lock_guard lock(m_link->mu);
  return m_link->closed;
}

LinkStats ClientLink::stats() const {
  std::lock_guard lock(m_link->mu);
  return m_link->stats;
}

size_t ClientLink::queued_bytes() const {
  std::lock_guard lock(m_link->mu);
  return m_link->queued;
}

Result<std::pair<std::string, uint16_t>> parse_host_port(const std::string& text) {
  std::string host;
  std::string port;
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') return Error{"'" + text + "': expected [ADDRESS]:PORT"};
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0) return Error{"'" + text + "': expected HOST:PORT"};
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string::npos)
      return Error{"'" + text + "': expected HOST:PORT (an IPv6 address goes in brackets: [ADDRESS]:PORT)"};
  }
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    return Error{"'" + text + "': the port is not a number 1..65535"};
  const long p = std::stol(port);
  if (p < 1 || p > 65535) return Error{"'" + text + "': the port is not a number 1..65535"};
  return std::make_pair(host, static_cast<uint16_t>(p));
}

}  // namespace voxen::net
