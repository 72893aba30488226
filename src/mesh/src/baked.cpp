#include "voxen/mesh/baked.h"

#include <string>

namespace voxen::mesh {
namespace {

// The face whose texture shows on face f after turning the block so its Y axis lies along `axis`.
// Axis x: a quarter turn about Z taking +Y to +X (+X <- +Y, -Y <- +X, -X <- -Y, +Y <- -X).
// Axis z: a quarter turn about X taking +Y to +Z (+Z <- +Y, -Y <- +Z, -Z <- -Y, +Y <- -Z).
int texture_source_face(int axis, int f) {
  if (axis == 1) {
    constexpr int kSrc[6] = {kFacePosY, kFaceNegY, kFaceNegX, kFacePosX, kFacePosZ, kFaceNegZ};
    return kSrc[f];
  }
  if (axis == 2) {
    constexpr int kSrc[6] = {kFacePosX, kFaceNegX, kFaceNegZ, kFacePosZ, kFacePosY, kFaceNegY};
    return kSrc[f];
  }
  return f;
}

}  // namespace

Result<BakedBlocks> BakedBlocks::bake(const BlockRegistry& registry) {
  BakedBlocks out;
  out.m_blocks.resize(registry.size());
  out.m_class.assign(65536, 0);
  out.m_texture.assign(registry.size() * 24, 0);
  for (size_t id = 0; id < registry.size(); ++id) {
    const BlockDef& def = registry[static_cast<uint16_t>(id)];
    BakedBlock b;
    b.shape = def.defined ? def.shape : Shape::kNone;
    b.transparency = def.transparency;
    b.state_mask = def.state_mask;
    b.has_axis = (def.states & kStateAxis) != 0;
    for (int f = 0; f < 6; ++f)
      if (def.face_texture_index[static_cast<size_t>(f)] > 1023)
        return Error{"block '" + def.name + "': texture index " +
                     std::to_string(def.face_texture_index[static_cast<size_t>(f)]) +
                     " does not fit the quad format's 10-bit texture field (at most 1024 textures)"};
    for (int axis = 0; axis < 3; ++axis)
      for (int f = 0; f < 6; ++f)
        b.texture[static_cast<size_t>(axis)][static_cast<size_t>(f)] =
            def.face_texture_index[static_cast<size_t>(texture_source_face(axis, f))];
    if (b.shape == Shape::kFluid || def.transparency == Transparency::kTranslucent) b.list = kListTranslucent;
    else if (def.transparency == Transparency::kCutout) b.list = kListCutout;
    else b.list = kListOpaque;

    uint8_t cls = 0;
    const bool opaque_material = def.transparency == Transparency::kOpaque;
    switch (b.shape) {
      case Shape::kNone: break;
      case Shape::kCube:
        if (opaque_material) cls = kClassOccluder | kClassSimple;
        else if (def.transparency == Transparency::kCutout) cls = kClassSimple;
        else cls = kClassGeneral;
        break;
      case Shape::kSlab:
      case Shape::kStairs:
      case Shape::kSlope:
        cls = static_cast<uint8_t>(kClassGeneral | (opaque_material ? kClassCoverShape : 0));
        break;
      case Shape::kCross:
      case Shape::kFluid: cls = kClassGeneral; break;
    }
    if (b.list == kListCutout && cls) cls = static_cast<uint8_t>(cls | kClassCutout);
    b.cls = cls;
    for (int axis_bits = 0; axis_bits < 4; ++axis_bits)
      for (int f = 0; f < 6; ++f)
        out.m_texture[id * 24 + static_cast<size_t>(axis_bits * 6 + f)] =
            b.texture[static_cast<size_t>(b.has_axis ? axis_bits % 3 : 0)][static_cast<size_t>(f)];
    out.m_class[id] = cls;
    out.m_blocks[id] = b;
  }
  return out;
}

}  // namespace voxen::mesh
