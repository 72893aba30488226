// `voxen play --world`'s save indicator says "saved" only once the edits are durable: a headless game over a saved
// world whose store holds every write until the test lets it through, an edit placed through the real input path,
// committed as `voxen play` commits, and the HUD's status line read back off the frame's pixels: it says the edit is
// being saved while the batch is queued and not written, and "ALL EDITS SAVED" only once the writer has committed it.
// The same for an edited column unloaded before a commit (its edits must not go out under a ticket nobody follows).
#include <gtest/gtest.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "hud_reader.h"
#include "play_test_util.h"
#include "voxen/gen/generator.h"
#include "voxen/stream/saved_world.h"
#include "voxen/store/world_session.h"
#include "voxen/store/world_store.h"

namespace voxen::play::testing {
namespace {

/// A MemoryWorldStore whose write() waits while the gate is closed (the write-behind writer thread blocks there).
class GatedStore final : public store::WorldStore {
 public:
  Result<std::vector<store::ColumnRecords>> load_columns(store::RecordKind kind, std::span<const ColumnPos> columns) override {
    return m_inner.load_columns(kind, columns);
  }
  Result<std::optional<std::string>> get(const store::RecordKey& key) override { return m_inner.get(key); }
  Status write(std::span<const store::WriteOp> ops, bool sync) override {
    std::unique_lock lock(m_mu);
    m_cv.wait(lock, [this] { return m_open; });
    return m_inner.write(ops, sync);
  }
  Result<std::vector<store::RecordKey>> list(store::RecordKind kind) override { return m_inner.list(kind); }
  Result<std::string> keep_aside(const store::RecordKey& key, std::string_view value) override {
    return m_inner.keep_aside(key, value);
  }
  Result<std::optional<std::string>> get_meta_record() override { return m_inner.get_meta_record(); }
  Status put_meta_record(std::string_view value, bool sync) override { return m_inner.put_meta_record(value, sync); }
  void set_open(bool open) {
    {
      std::lock_guard lock(m_mu);
      m_open = open;
    }
    m_cv.notify_all();
  }

 private:
  store::MemoryWorldStore m_inner;
  std::mutex m_mu;
  std::condition_variable m_cv;
  bool m_open = true;
};

/// The flat generator of seed 7 (the attached world's terrain).
const gen::Generator& flat7() {
  static const std::unique_ptr<gen::Generator> g = std::move(gen::make_generator("flat", 7, registry())).value();
  return *g;
}

std::unique_ptr<store::WorldSession> attach_flat(GatedStore& store) {
  store::WorldMeta meta;
  meta.seed = 7;
  meta.generator = "flat";
  auto s = store::WorldSession::attach(store, meta, registry());
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().to_string());
  return s.ok() ? std::move(s).value() : nullptr;
}

TEST(SaveIndicator, TheHudSaysSavedOnlyOnceTheEditIsCommitted) {
  GatedStore gated;
  auto ws = attach_flat(gated);
  ASSERT_TRUE(ws);
  stream::SavedWorld backend(*ws, &flat7());
  // Feet at (5.5, 1, 5.5) looking east; glowstone (slot 8) placed on the ground block (8, 0, 5) at frame 42.
  RecordingHeader h = flat_header(5.5, 1.0, 5.5, 90.0, 0.0);
  h.width = 320;
  h.height = 180;
  RecordingBuilder b(h);
  b.tap(40, Key::k8).look(40, 90.0, pitch_to(1.0 + 1.62, 1.0, 3.0)).click(42, MouseButton::kRight);
  const Recording rec = b.finish(60, temp_dir("save_indicator") + "/place.rec");
  SessionOptions so;
  so.window = false;
  so.threads = 2;
  so.source = &backend;
  so.game.status_source = [&backend] { return "W: " + backend.save_status(); };  // cmd_play's wiring
  auto s = PlaySession::open(rec.header, so, registry());
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  Game& g = (*s)->game();

  run_events(g, rec.events, 40, 39, true);
  EXPECT_EQ(read_status_line(g.read_pixels()), "W: ALL EDITS SAVED");  // nothing edited yet

  gated.set_open(false);  // the writer now holds every batch
  uint64_t edits = 0;
  run_events(g, rec.events, 3, 1, true, [&](const FrameReport& rep) {
    edits += static_cast<uint64_t>(rep.edits_applied);
    return true;
  });
  ASSERT_EQ(edits, 1u);
  ASSERT_EQ(g.world().get({8, 1, 5}).id, registry().id("glowstone"));
  // The frame that placed it: applied, not even queued.
  EXPECT_EQ(read_status_line(g.read_pixels()), "W: SAVING 1 EDIT");
  ASSERT_TRUE(backend.commit().ok());  // as `voxen play` does after an edit frame: queued, the writer blocked
  run_events(g, {}, 2, 1, true);
  EXPECT_EQ(read_status_line(g.read_pixels()), "W: SAVING 1 EDIT");  // queued is not saved
  EXPECT_EQ(backend.unsaved_edits(), 1u);

  gated.set_open(true);
  ASSERT_TRUE(ws->flush().ok());  // every queued batch committed
  run_events(g, {}, 2, 1, true);
  EXPECT_EQ(read_status_line(g.read_pixels()), "W: ALL EDITS SAVED");
  s->reset();
  EXPECT_TRUE(ws->close().ok());
}

TEST(SaveIndicator, AnEditedColumnUnloadedBeforeACommitIsNotSaidSavedUntilCommitted) {
  GatedStore gated;
  auto ws = attach_flat(gated);
  ASSERT_TRUE(ws);
  stream::SavedWorld backend(*ws, &flat7());
  World world;
  auto loaded = backend.load({{0, 0}, {1, 0}});
  ASSERT_TRUE(loaded.ok());
  for (auto& c : *loaded) world.insert(std::move(c));
  gated.set_open(false);
  auto e1 = world.make_edit({3, 20, 3}, Cell{registry().id("glass"), 0});
  ASSERT_TRUE(e1);
  ASSERT_TRUE(world.apply(*e1));  // as the streamer applies an edit, then tells the source
  backend.record(*e1, *world.find({0, 0}));
  EXPECT_EQ(backend.save_status(), "SAVING 1 EDIT");
  // The streamer takes column (0, 0) out of the World and hands it back to the backend to save and drop; the next
  // commit has nothing left to queue.
  ASSERT_TRUE(backend.unload(world.remove({0, 0})).ok());
  ASSERT_TRUE(backend.commit().ok());
  EXPECT_EQ(backend.save_status(), "SAVING 1 EDIT");  // its batch is still held by the gate
  gated.set_open(true);
  ASSERT_TRUE(ws->flush().ok());
  EXPECT_EQ(backend.save_status(), "ALL EDITS SAVED");
  EXPECT_TRUE(ws->close().ok());
}

}  // namespace
}  // namespace voxen::play::testing
