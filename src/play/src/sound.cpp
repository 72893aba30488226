#include "voxen/play/sound.h"

#include <algorithm>
#include <cmath>

#include "voxen/audio/synth.h"
#include "voxen/core/hash.h"

namespace voxen::play {
namespace {

audio::WorldPoint centre(const BlockPos& cell) { return audio::WorldPoint{cell, glm::dvec3(0.5)}; }

}  // namespace

SoundDirector::SoundDirector(SoundSink& sink, const BlockRegistry& registry, SoundConfig config)
    : m_sink(sink), m_registry(registry), m_config(config), m_water(registry.find("water")), m_lava(registry.find("lava")) {}

std::optional<audio::Material> SoundDirector::ground(const PlayerState& p, const World& world) const {
  // The cell just below the feet (a slab's top is at frac 0.5 of its own cell: 0.05 below still finds it).
  const double y = p.frac.y - 0.05;
  const int64_t cy = p.block.y + static_cast<int64_t>(std::floor(y));
  const double half = 0.3;
  const double offsets[5][2] = {{0, 0}, {-half, -half}, {half, -half}, {-half, half}, {half, half}};
  for (const auto& o : offsets) {
    const BlockPos cell{p.block.x + static_cast<int64_t>(std::floor(p.frac.x + o[0])), cy,
                        p.block.z + static_cast<int64_t>(std::floor(p.frac.z + o[1]))};
    if (!y_in_range(cell.y)) continue;
    const BlockDef& def = m_registry[world.get(cell).id];
    if (!def.solid) continue;  // a footstep is on what holds the player up
    if (auto m = audio::material_of(def)) return m;
  }
  return std::nullopt;
}

void SoundDirector::stepped(const PlayerState& before, const PlayerState& after, const World& world) {
  if (after.flying || !before.on_ground || !after.on_ground) return;
  const double dx = static_cast<double>(coord_delta(after.block.x, before.block.x)) + after.frac.x - before.frac.x;
  const double dz = static_cast<double>(coord_delta(after.block.z, before.block.z)) + after.frac.z - before.frac.z;
  m_walked += std::sqrt(dx * dx + dz * dz);
  if (m_walked < m_config.stride) return;
  m_walked -= m_config.stride;
  if (auto m = ground(after, world)) m_sink.footstep(*m, audio::WorldPoint{after.block, after.frac});
}

void SoundDirector::dug(const Edit& edit) {
  if (auto m = audio::material_of(m_registry[edit.before.id])) m_sink.dig(*m, edit.pos);
}

void SoundDirector::placed(const Edit& edit) {
  if (auto m = audio::material_of(m_registry[edit.after.id])) m_sink.place(*m, edit.pos);
}

void SoundDirector::scan(const BlockPos& eye, const World& world) {
  m_water_cells.clear();
  m_lava_cells.clear();
  if (!m_water && !m_lava) return;
  struct Found {
    int64_t d2;
    BlockPos pos;
    bool lava;
  };
  std::vector<Found> found;
  const int64_t r = m_config.ambience_radius;
  // Column by column: one lookup a column, then its cells.
  for (int64_t x = eye.x - r; x <= eye.x + r; ++x)
    for (int64_t z = eye.z - r; z <= eye.z + r; ++z) {
      const Column* col = world.find(column_pos_of(BlockPos{x, 0, z}));
      if (!col) continue;
      for (int64_t y = std::max<int64_t>(eye.y - r, kMinY); y <= std::min<int64_t>(eye.y + r, kMaxY); ++y) {
        const uint16_t id = col->get(local_of(x), y, local_of(z)).id;
        const bool lava = m_lava && id == *m_lava;
        if (!lava && !(m_water && id == *m_water)) continue;
        const int64_t dx = x - eye.x, dy = y - eye.y, dz = z - eye.z;
        found.push_back({dx * dx + dy * dy + dz * dz, BlockPos{x, y, z}, lava});
      }
    }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return a.d2 != b.d2 ? a.d2 < b.d2 : a.pos < b.pos;  // ties by position: the same world scans the same
  });
  for (const Found& f : found) {
    auto& list = f.lava ? m_lava_cells : m_water_cells;
    if (list.size() < audio::kMaxEmitters) list.push_back(f.pos);
  }
}

void SoundDirector::frame(const PlayerState& player, double eye_height, const World& world) {
  PlayerState eye = player;
  eye.frac.y += eye_height;
  eye.normalise();
  const glm::dvec3 forward = look_direction(player.yaw, player.pitch);
  const glm::dvec3 right = horizontal_right(player.yaw);  // defined looking straight up or down too
  m_sink.listener(audio::WorldPoint{eye.block, eye.frac}, forward, glm::cross(right, forward));
  if (!m_scanned_at || *m_scanned_at != eye.block || m_frames - m_scanned_frame >= static_cast<uint64_t>(m_config.rescan_frames)) {
    scan(eye.block, world);
    m_scanned_at = eye.block;
    m_scanned_frame = m_frames;
  }
  m_sink.ambience(m_water_cells, m_lava_cells);
  const double feet_y = static_cast<double>(player.block.y) + player.frac.y;
  m_sink.wind(std::clamp((feet_y - m_config.wind_from_y) / (m_config.wind_full_y - m_config.wind_from_y), 0.0, 1.0));
  ++m_frames;
}

void MixerSoundSink::listener(const audio::WorldPoint& eye, const glm::dvec3& forward, const glm::dvec3& up) {
  m_mixer.set_listener(eye, forward, up);
  if (!m_music_started && m_music_gain > 0) m_mixer.set_loop(audio::kMusic, m_music_gain);
  m_music_started = true;
}

void MixerSoundSink::footstep(audio::Material m, const audio::WorldPoint& feet) {
  // A little pitch spread so a walk is not one sound repeated: a hash of where and which step.
  const double u = hash_to_unit(hash3(0x5f3759df, feet.block.x, feet.block.z, static_cast<int64_t>(m_steps++)));
  m_mixer.play(audio::footstep_name(m), feet, 0.45f, static_cast<float>(0.92 + 0.16 * u));
}

void MixerSoundSink::dig(audio::Material m, const BlockPos& cell) { m_mixer.play(audio::dig_name(m), centre(cell), 0.9f, 1.0f); }

void MixerSoundSink::place(audio::Material m, const BlockPos& cell) { m_mixer.play(audio::place_name(m), centre(cell), 0.8f, 1.0f); }

void MixerSoundSink::ambience(std::span<const BlockPos> water, std::span<const BlockPos> lava) {
  m_points.clear();
  for (const BlockPos& p : water) m_points.push_back(centre(p));
  m_mixer.set_emitters(audio::kWaterAmbience, m_points, 0.5f);
  m_points.clear();
  for (const BlockPos& p : lava) m_points.push_back(centre(p));
  m_mixer.set_emitters(audio::kLavaAmbience, m_points, 0.7f);
}

void MixerSoundSink::wind(double level) { m_mixer.set_loop(audio::kWind, static_cast<float>(0.6 * level)); }

}  // namespace voxen::play
