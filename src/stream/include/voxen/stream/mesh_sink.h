// Where the column streamer puts the meshes it makes: its upload target (docs/ARCHITECTURE.md, Column lifecycle).
// The streamer decides which sections of which columns are meshed and when; a MeshSink only receives the results:
//   - RendererSink: a render::Renderer's arenas (`voxen shot`, `voxen view`, `voxen play`: the meshes are drawn);
//   - other sinks keep the quads for something that is not a GL renderer: `voxen mem` keeps their bytes to count
//     them (app/voxen/cmd_mem.cpp), and a server running the column lifecycle with no GL has no renderer at all.
// Sections are world section positions (column x, section index 0..23 from y = -128, column z); a mesh is the
// mesher's output for that section (opaque, cutout and translucent quads, docs/formats/quad_format.md).
// Threads: the streamer calls a sink from its owner's thread only (the main thread), never from a job.
#pragma once

#include "voxen/core/coords.h"
#include "voxen/mesh/mesher.h"
#include "voxen/render/renderer.h"

namespace voxen::stream {

class MeshSink {
 public:
  virtual ~MeshSink() = default;
  /// Section `pos` has `mesh` now, replacing whatever it had; an empty mesh means it has nothing to draw (a sink
  /// then holds nothing for it). The mesh is only borrowed for the call.
  virtual void set_section(const SectionPos& pos, const mesh::SectionMesh& mesh) = 0;
  /// The same for a mesh the streamer is done with (a finished mesh job's): a sink that keeps meshes may move the
  /// quads in instead of copying them. The default calls set_section.
  virtual void take_section(const SectionPos& pos, mesh::SectionMesh&& mesh) { set_section(pos, mesh); }
  /// Section `pos` has no mesh any more (its column was undrawn or released); nothing happens if it had none.
  virtual void remove_section(const SectionPos& pos) = 0;
  /// True when the sink keeps the meshes it takes (take_section) rather than copying their quads elsewhere and
  /// dropping them, as a renderer does. The batch mode then trims each mesh's quad vectors to their contents on the
  /// worker that made it (the mesher reserves 1,024 quads a list), so what the sink keeps holds no spare capacity.
  virtual bool keeps_meshes() const { return false; }
  /// True when the sink wants each section's cells just before its mesh (set_cells): a renderer that ray-marches
  /// or traces shadows builds the section's shadow layer from them.
  virtual bool wants_cells() const { return false; }
  /// Section `pos` holds `cells` now; its mesh (set_section / take_section) follows. Borrowed for the call.
  virtual void set_cells(const SectionPos& pos, const Section& cells) { (void)pos, (void)cells; }
};

/// Uploads to a Renderer (Renderer::set_section / remove_section: each section writes only its own arena spans).
class RendererSink final : public MeshSink {
 public:
  /// `renderer` must outlive the sink.
  explicit RendererSink(render::Renderer& renderer) : m_renderer(renderer) {}
  void set_section(const SectionPos& pos, const mesh::SectionMesh& mesh) override { m_renderer.set_section(pos, mesh); }
  void remove_section(const SectionPos& pos) override { m_renderer.remove_section(pos); }
  bool wants_cells() const override { return m_renderer.traces(); }
  void set_cells(const SectionPos& pos, const Section& cells) override { m_renderer.set_cells(pos, cells); }

 private:
  render::Renderer& m_renderer;
};

}  // namespace voxen::stream
