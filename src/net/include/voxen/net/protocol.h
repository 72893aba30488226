// The voxen network protocol, version 1: the messages a client and a server exchange over one TCP connection, and
// their bounded, validated encoding (docs/formats/protocol.md has every byte layout).
//
// A connection carries frames: a uint32 little-endian length L (1..kMaxClientFrame from a client,
// 1..kMaxServerFrame from a server), then L bytes: a uint8 message type and its payload. Every integer is
// little-endian; floats are IEEE 754; strings are a length (uint8 or uint16) and that many UTF-8 bytes.
//
// decode_client() and decode_server() check everything a message can get wrong on its own before anything uses
// it: the type, every length against its bound and the bytes left, ranges (world y -128..255, coordinates within
// +-2^59 blocks, radii, finite poses, names of [A-Za-z0-9_-]), well-formed UTF-8 text without control characters,
// and no bytes after the payload. What needs the server's state (the block id exists, the column is held, reach,
// rates) is checked by the server (net/server.h). A decode error names the message, the field and the byte offset.
//
// Coordinates: world blocks (int64, y up), columns keyed by (x >> 4, z >> 4) (core/coords.h).
// After the voxelG seed's server (a shared seed, an edit log, poses at <= 20 Hz within 600 blocks), over TCP.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "voxen/core/coords.h"
#include "voxen/core/error.h"
#include "voxen/world/cell.h"
#include "voxen/world/section.h"

namespace voxen::net {

inline constexpr uint32_t kMagic = 0x4E584F56;  // bytes "VOXN" in a Hello
inline constexpr uint16_t kProtocolVersion = 1;
inline constexpr size_t kFrameHeaderSize = 4;             // the uint32 length before each frame
inline constexpr size_t kMaxClientFrame = 4096;           // a client's largest frame (type + payload)
inline constexpr size_t kMaxServerFrame = 6u << 20;       // a server's largest frame (a column's sections)
inline constexpr size_t kMaxNameBytes = 32;               // a player name: 1..32 of [A-Za-z0-9_-]
inline constexpr size_t kMaxChatBytes = 256;              // a chat line: 1..256 bytes of UTF-8, no control characters
inline constexpr size_t kMaxReasonBytes = 512;            // a refusal or disconnect reason
inline constexpr size_t kMaxColumnsPerMessage = 64;       // a request, release or hash query: 1..64 columns
inline constexpr size_t kMaxListEntries = 4096;           // edits, changes, poses, log entries per message
inline constexpr int kMaxViewRadius = 32;                 // a client's view radius in columns, 1..32
inline constexpr int64_t kMaxCoordinate = int64_t{1} << 59;  // |x|, |z| of any block (columns: >> 4)
inline constexpr double kMaxPoseY = 65536.0;               // |y| of a pose (players may fly above the world)

/// Every message's type byte (the first byte of a frame).
enum class MsgType : uint8_t {
  // client -> server
  kHello = 1,
  kRequestColumns = 2,
  kReleaseColumns = 3,
  kEdit = 4,
  kPose = 5,
  kChat = 6,
  kLeave = 7,
  kLogQuery = 8,
  kHashQuery = 9,
  // server -> client
  kWelcome = 64,
  kRefuse = 65,
  kColumn = 66,
  kEditResult = 67,
  kEdits = 68,
  kChanges = 69,
  kPoses = 70,
  kPlayerJoined = 71,
  kPlayerLeft = 72,
  kChatLine = 73,
  kLogEntries = 74,
  kHashes = 75,
};
/// "Hello (1)": how messages are named in errors.
std::string msg_name(uint8_t type);

/// Why the server refused an edit (EditResult::reason); 0 = accepted.
enum class EditRefusal : uint8_t {
  kNone = 0,
  kCellChanged = 1,     // the cell is not what the client thought (another edit or the simulation came first)
  kOutOfReach = 2,      // farther than the reach from the player's last pose
  kColumnNotHeld = 3,   // the client does not hold the column (never sent, or released)
  kNotReplaceable = 4,  // a placement over a block (only air, fluid or a non-solid plant can be replaced)
  kCannotDig = 5,       // digging air, a fluid or bedrock
  kOverlapsPlayer = 6,  // a solid block in a player's box
  kDuplicate = 7,       // the client sequence number was applied before (a resend after a reconnect)
  kBadBlock = 8,        // a block id the registry lacks, or one players may not place (bedrock, unknown)
};
inline constexpr uint8_t kMaxEditRefusal = 8;
/// "cell changed", ...: for messages and reports.
const char* refusal_name(EditRefusal r);

/// A player's position: feet at (x, y, z) in world blocks, look yaw and pitch in degrees (yaw 0 looks north, -Z;
/// pitch + up), flags bit 0 flying.
struct Pose {
  double x = 0, y = 0, z = 0;
  float yaw = 0, pitch = 0;
  uint8_t flags = 0;
  friend bool operator==(const Pose&, const Pose&) = default;
};

// ---- client -> server ------------------------------------------------------------------------------------------

/// The first message of a connection: protocol version, the player's name (unique per server) and the view
/// radius in columns it wants (the server may grant less).
struct Hello {
  uint16_t version = kProtocolVersion;
  std::string name;
  uint8_t view_radius = 8;
  friend bool operator==(const Hello&, const Hello&) = default;
};
/// Asks for the columns (each answered by a ColumnData; those outside the view radius are ignored).
struct RequestColumns {
  std::vector<ColumnPos> columns;
  friend bool operator==(const RequestColumns&, const RequestColumns&) = default;
};
/// The client dropped these columns: the server sends no more changes of them.
struct ReleaseColumns {
  std::vector<ColumnPos> columns;
  friend bool operator==(const ReleaseColumns&, const ReleaseColumns&) = default;
};
/// A dig (cell = air) or a placement, already shown on the client (its prediction): client_seq increases by
/// connection and across reconnects of one name; `expect` is the cell the client saw there.
struct EditRequest {
  uint32_t client_seq = 0;
  BlockPos pos;
  Cell expect;
  Cell cell;
  friend bool operator==(const EditRequest&, const EditRequest&) = default;
};
/// The player's pose (sent at most 20 times a second).
struct PoseUpdate {
  Pose pose;
  friend bool operator==(const PoseUpdate&, const PoseUpdate&) = default;
};
/// A chat line from the player.
struct Chat {
  std::string text;
  friend bool operator==(const Chat&, const Chat&) = default;
};
/// The player leaves (the server closes the connection).
struct Leave {
  friend bool operator==(const Leave&, const Leave&) = default;
};
/// Asks for the server's edit log entries of this player's name with client_seq > after (answered by LogEntries).
struct LogQuery {
  uint32_t after = 0;
  friend bool operator==(const LogQuery&, const LogQuery&) = default;
};
/// Asks for the server's content hash of each column (answered by Hashes).
struct HashQuery {
  std::vector<ColumnPos> columns;
  friend bool operator==(const HashQuery&, const HashQuery&) = default;
};

using ClientMessage =
    std::variant<Hello, RequestColumns, ReleaseColumns, EditRequest, PoseUpdate, Chat, Leave, LogQuery, HashQuery>;

// ---- server -> client ------------------------------------------------------------------------------------------

/// The answer to a Hello: who the player is and what world this is. The client makes the same generator from
/// (generator, seed) and must find the same fingerprints, else it cannot show the world (it disconnects).
struct Welcome {
  uint16_t version = kProtocolVersion;
  uint32_t player_id = 0;
  std::string world_name;            // the world's directory name or database world name
  uint64_t seed = 0;
  std::string generator;             // "default", "flat"; "" for an imported world (no generation: air)
  std::string generator_fingerprint;  // gen::fingerprint, 16 hex digits ("" when no generator)
  uint64_t registry_fingerprint = 0;  // registry_fingerprint() of the server's block registry
  uint8_t view_radius = 8;           // granted, in columns (<= asked)
  uint16_t pose_radius = 600;        // poses of players within this many blocks are sent
  uint16_t tick_rate = 20;           // simulation ticks a second
  double spawn_x = 0, spawn_y = 0, spawn_z = 0;  // where to stand (feet, world blocks)
  uint32_t last_client_seq = 0;      // the highest client_seq the server applied for this name (0: none)
  uint64_t server_seq = 0;           // the server's last edit sequence number
  friend bool operator==(const Welcome&, const Welcome&) = default;
};
/// The connection is refused or closed, and why (sent before the server closes it).
struct Refuse {
  std::string reason;
  friend bool operator==(const Refuse&, const Refuse&) = default;
};
/// One column as the server holds it: generate it from the world's seed, then replace the sections in `mask` (bit
/// s: section s, bottom to top) by `sections` (in ascending s). An unedited column has mask 0. The client holds the
/// column from now on and gets every later change of it.
struct ColumnData {
  ColumnPos pos;
  uint64_t server_seq = 0;        // the last edit applied when this column message was built (it is cached until
                                  // the column changes, so every later edit of the world may be missing, not of the column)
  uint32_t mask = 0;              // 24 bits
  std::vector<Section> sections;  // popcount(mask) sections
  bool operator==(const ColumnData& o) const;
};
/// The fate of the client's edit client_seq: accepted (applied, logged and committed to the world's store: it
/// survives a crash of the server) with its server_seq, or refused with a reason. `now` is the cell at pos on the
/// server as this message is sent (the client shows it, then its later predictions there).
struct EditResult {
  uint32_t client_seq = 0;
  EditRefusal reason = EditRefusal::kNone;
  uint64_t server_seq = 0;  // 0 when refused
  BlockPos pos;
  Cell now;
  friend bool operator==(const EditResult&, const EditResult&) = default;
};
/// Another player's accepted edit.
struct EditEvent {
  uint64_t server_seq = 0;
  uint32_t player_id = 0;
  BlockPos pos;
  Cell cell;
  friend bool operator==(const EditEvent&, const EditEvent&) = default;
};
struct Edits {
  std::vector<EditEvent> edits;
  friend bool operator==(const Edits&, const Edits&) = default;
};
/// One cell the simulation changed, column-local: x, z 0..15, world y.
struct CellChangeLocal {
  uint8_t x = 0, z = 0;
  int16_t y = 0;
  Cell cell;
  friend bool operator==(const CellChangeLocal&, const CellChangeLocal&) = default;
};
/// The simulation's changes of one held column in one tick.
struct Changes {
  uint64_t tick = 0;
  ColumnPos column;
  std::vector<CellChangeLocal> cells;
  friend bool operator==(const Changes&, const Changes&) = default;
};
struct PlayerPose {
  uint32_t player_id = 0;
  Pose pose;
  friend bool operator==(const PlayerPose&, const PlayerPose&) = default;
};
/// Poses of other players within the pose radius (at most 20 times a second, only those that moved).
struct Poses {
  std::vector<PlayerPose> poses;
  friend bool operator==(const Poses&, const Poses&) = default;
};
struct PlayerJoined {
  uint32_t player_id = 0;
  std::string name;
  friend bool operator==(const PlayerJoined&, const PlayerJoined&) = default;
};
struct PlayerLeft {
  uint32_t player_id = 0;
  std::string reason;
  friend bool operator==(const PlayerLeft&, const PlayerLeft&) = default;
};
struct ChatLine {
  uint32_t player_id = 0;  // 0: the server
  std::string text;
  friend bool operator==(const ChatLine&, const ChatLine&) = default;
};
struct LogEntryRef {
  uint32_t client_seq = 0;
  uint64_t server_seq = 0;
  friend bool operator==(const LogEntryRef&, const LogEntryRef&) = default;
};
/// Edit log entries of the asking player's name, in server order; `done` on the last message of the answer.
struct LogEntries {
  bool done = true;
  std::vector<LogEntryRef> entries;
  friend bool operator==(const LogEntries&, const LogEntries&) = default;
};
struct ColumnHash {
  ColumnPos pos;
  bool loaded = false;  // false: the server does not hold the column (hash 0)
  uint64_t hash = 0;    // Column::content_hash (cells only)
  friend bool operator==(const ColumnHash&, const ColumnHash&) = default;
};
struct Hashes {
  std::vector<ColumnHash> hashes;
  friend bool operator==(const Hashes&, const Hashes&) = default;
};

using ServerMessage = std::variant<Welcome, Refuse, ColumnData, EditResult, Edits, Changes, Poses, PlayerJoined,
                                   PlayerLeft, ChatLine, LogEntries, Hashes>;

/// The whole frame (length prefix, type, payload) of a message. A message past its bounds (too many entries, a long
/// name) is the caller's bug: asserted.
std::string encode(const ClientMessage& m);
std::string encode(const ServerMessage& m);
/// Decodes a frame's body (type + payload, without the length prefix). Errors: an unknown or server-only type, a
/// field out of its range, a short or overlong body; the message names message, field and byte offset.
Result<ClientMessage> decode_client(std::string_view body);
Result<ServerMessage> decode_server(std::string_view body);

/// A name players may use: 1..32 bytes of [A-Za-z0-9_-].
bool valid_name(std::string_view name);
/// Well-formed UTF-8 (no overlong forms, no surrogates) without control characters (below 0x20, 0x7F).
bool valid_text(std::string_view text);

}  // namespace voxen::net
