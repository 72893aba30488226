// The GL objects of the ray-march path, traced shadows and the id pass (not public; renderer.h, Renderer::march).
// Include after <epoxy/gl.h>.
#pragma once

#include <array>
#include <cstdint>

#include <glm/glm.hpp>

#include "gl_util.h"
#include "voxen/render/renderer.h"

namespace voxen::render {

/// What every terrain program's shading reads of a frame (sky_common.glsl, shade_common.glsl): the sun's direction,
/// how much it is day (0..1) and how much sky the eye sees (0..1).
struct ShadeInputs {
  glm::dvec3 sun{0.0, 1.0, 0.0};
  glm::vec3 sun_color{1.0f, 1.0f, 1.0f};  // renderer.h sun_color
  float day = 1.0f;
  float sky_seen = 1.0f;
};
ShadeInputs shade_inputs(const FrameParams& params);

/// The texture unit of the layer tints (shade_common.glsl u_layer_tint) in every terrain program and the ray march;
/// render() binds the tint texture there each frame.
inline constexpr GLint kTintTextureUnit = 8;

struct MarchGpu {
  gl::Program march, beam, composite;  // raymarch_comp.glsl (and with VOXEN_BEAM), raymarch_composite_frag.glsl
  gl::Program ids;                     // terrain_vert (VOXEN_ID) + id_frag.glsl
  gl::Texture color, depth, id, probe, beam_depth;  // the march's outputs (remade when the size changes)
  int width = 0, height = 0;
  gl::Buffer steps;                    // the step histogram (kStepBins uints)
  static constexpr uint32_t kStepBins = 4097;
  // The id pass's target: RGBA32I ids, RGBA32F probes and a depth buffer (remade when the size changes).
  GLuint id_fbo = 0, id_depth = 0;
  gl::Texture id_ids, id_probes;
  int id_width = 0, id_height = 0;
  std::array<GLuint, 32> emissive_bits{};
  bool failed = false;  // a program did not build (logged once): the ray march draws nothing
  ~MarchGpu() {
    if (id_fbo) glDeleteFramebuffers(1, &id_fbo);
    if (id_depth) glDeleteRenderbuffers(1, &id_depth);
  }
};

}  // namespace voxen::render
