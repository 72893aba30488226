#include "voxen/render/image.h"

#include <cstring>

// Debian's libstb.so already holds the implementations: only the declarations are included here.
#include <stb_image.h>
#include <stb_image_write.h>

namespace voxen::render {

Image::Image(int w, int h, uint32_t argb) : width(w), height(h), pixels(static_cast<size_t>(w) * static_cast<size_t>(h) * 4) {
  const uint8_t rgba[4] = {static_cast<uint8_t>(argb >> 16), static_cast<uint8_t>(argb >> 8), static_cast<uint8_t>(argb),
                           static_cast<uint8_t>(argb >> 24)};
  for (size_t i = 0; i < pixels.size(); i += 4) std::memcpy(&pixels[i], rgba, 4);
}

Result<Image> load_png(const std::string& path) {
  int w = 0, h = 0, channels = 0;
  unsigned char* data = stbi_load(path.c_str(), &w, &h, &channels, 4);
  if (!data) {
    const char* why = stbi_failure_reason();
    return Error{std::string("cannot read image: ") + (why ? why : "unknown error"), path};
  }
  Image img;
  img.width = w;
  img.height = h;
  img.pixels.assign(data, data + static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  stbi_image_free(data);
  return img;
}

Status save_png(const Image& image, const std::string& path) {
  if (image.width <= 0 || image.height <= 0 || image.pixels.size() != image.pixel_count() * 4)
    return Error{"cannot write image: empty or malformed (" + std::to_string(image.width) + "x" + std::to_string(image.height) + ")", path};
  if (!stbi_write_png(path.c_str(), image.width, image.height, 4, image.pixels.data(), image.width * 4))
    return Error{"cannot write image (directory missing or not writable?)", path};
  return Ok{};
}

}  // namespace voxen::render
