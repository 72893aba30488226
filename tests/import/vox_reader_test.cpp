// The .vox reader on hand-built files: palette indexing, the default palette, materials, skipped chunks, and
// every bad-input case with the byte offset its error must carry.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "voxen/import/vox_file.h"
#include "voxen/import/vox_place.h"
#include "vox_builder.h"

namespace voxen::import {
namespace {

using testing::Bytes;
using testing::VoxBuilder;

std::array<std::array<uint8_t, 4>, 256> ramp_palette() {
  std::array<std::array<uint8_t, 4>, 256> p{};
  for (size_t i = 0; i < 256; ++i)
    p[i] = {static_cast<uint8_t>(i), static_cast<uint8_t>(255 - i), static_cast<uint8_t>(i * 7), 255};
  return p;
}

VoxBuilder one_model() {
  VoxBuilder b;
  b.model(2, 2, 2, {{0, 0, 0, 1}, {1, 1, 1, 5}});
  return b;
}

Error read_error(const Bytes& bytes) {
  auto r = read_vox(bytes, "test.vox");
  EXPECT_FALSE(r.ok());
  if (r.ok()) return Error{};
  EXPECT_EQ(r.error().file, "test.vox");
  return r.error();
}

TEST(VoxReader, PaletteEntryIIsColourIndexIPlusOne) {
  VoxBuilder b = one_model();
  b.rgba(ramp_palette());
  auto f = read_vox(b.bytes(), "p.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_TRUE(f->has_rgba);
  for (size_t index = 1; index < 256; ++index) {
    const size_t entry = index - 1;
    EXPECT_EQ(f->palette[index], (VoxRgba{static_cast<uint8_t>(entry), static_cast<uint8_t>(255 - entry),
                                          static_cast<uint8_t>(entry * 7), 255}))
        << "colour index " << index;
  }
}

TEST(VoxReader, DefaultPaletteWhenRgbaIsAbsent) {
  auto f = read_vox(one_model().bytes(), "d.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_FALSE(f->has_rgba);
  // Entries of the specification's default_palette table (0xAABBGGRR words), by colour index.
  const std::pair<size_t, uint32_t> spec[] = {{1, 0xffffffff}, {2, 0xffccffff}, {7, 0xffffccff}, {37, 0xffffffcc},
                                              {215, 0xff330000}, {216, 0xff0000ee}, {225, 0xff000011},
                                              {226, 0xff00ee00}, {236, 0xffee0000}, {246, 0xffeeeeee},
                                              {255, 0xff111111}, {96, 0xff006699}, {100, 0xff663399}, {103, 0xffff0099}};
  for (const auto& [index, abgr] : spec) {
    const VoxRgba want{static_cast<uint8_t>(abgr), static_cast<uint8_t>(abgr >> 8), static_cast<uint8_t>(abgr >> 16),
                       static_cast<uint8_t>(abgr >> 24)};
    EXPECT_EQ(f->palette[index], want) << "colour index " << index;
  }
}

TEST(VoxReader, ShortRgbaKeepsTheDefaultPaletteForTheIndicesItLacks) {
  // The 80-byte file: VOX 150, MAIN, SIZE 1x1x1, XYZI with one voxel of colour 1, RGBA with 4 bytes.
  VoxBuilder b;
  b.model(1, 1, 1, {{0, 0, 0, 1}});
  const size_t at = b.chunk("RGBA", Bytes{10, 20, 30, 255});
  const Bytes bytes = b.bytes();
  ASSERT_EQ(bytes.size(), 80u);
  auto f = read_vox(bytes, "short.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_TRUE(f->has_rgba);
  EXPECT_EQ(f->palette[1], (VoxRgba{10, 20, 30, 255}));
  for (size_t index = 2; index < 256; ++index) EXPECT_EQ(f->palette[index], default_palette()[index]) << index;
  ASSERT_EQ(f->warnings.size(), 1u);  // once for the chunk, not once per missing colour
  EXPECT_EQ(f->warnings[0].offset, static_cast<int64_t>(at));
  EXPECT_EQ(f->warnings[0].file, "short.vox");
  EXPECT_NE(f->warnings[0].message.find("4 bytes, 1 of the 256 colours"), std::string::npos) << f->warnings[0].message;
  EXPECT_NE(f->warnings[0].message.find("colour indices 2..255 take MagicaVoxel's default palette"), std::string::npos)
      << f->warnings[0].message;
}

TEST(VoxReader, RgbaWithAPartialColourOrMoreThan256IsReadAndTheNextChunksToo) {
  // 3 colours and 2 stray bytes, then a MATL: the reader goes on after the chunk.
  VoxBuilder b = one_model();
  Bytes rgba;
  for (uint8_t i = 0; i < 14; ++i) rgba.push_back(static_cast<uint8_t>(100 + i));
  const size_t at = b.chunk("RGBA", rgba);
  b.matl(2, {{"_type", "_glass"}, {"_trans", "0.5"}});
  auto f = read_vox(b.bytes(), "odd.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_EQ(f->palette[3], (VoxRgba{108, 109, 110, 111}));
  EXPECT_EQ(f->palette[4], default_palette()[4]);
  EXPECT_EQ(f->materials[2].type, VoxMaterialType::kGlass);
  ASSERT_EQ(f->warnings.size(), 1u);
  EXPECT_NE(f->warnings[0].message.find("the last 2 bytes (from byte " + std::to_string(at + 12 + 12) + ")"),
            std::string::npos)
      << f->warnings[0].message;

  // A full palette followed by extra bytes: all 255 indices from the chunk, the rest named in a warning.
  VoxBuilder c = one_model();
  Bytes big(1030, 0);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i);
  c.chunk("RGBA", big);
  auto g = read_vox(c.bytes(), "big.vox");
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_EQ(g->palette[255], (VoxRgba{0xF8, 0xF9, 0xFA, 0xFB}));  // entry 254: bytes 1016..1019
  ASSERT_EQ(g->warnings.size(), 1u);
  EXPECT_NE(g->warnings[0].message.find("the 6 past the 256 colours"), std::string::npos) << g->warnings[0].message;

  // A second, shorter RGBA replaces the first: the indices it lacks are the default palette's again.
  VoxBuilder d = one_model();
  d.rgba(ramp_palette());
  d.chunk("RGBA", Bytes{1, 2, 3, 4});
  auto h = read_vox(d.bytes(), "two.vox");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->palette[1], (VoxRgba{1, 2, 3, 4}));
  EXPECT_EQ(h->palette[2], default_palette()[2]);
  EXPECT_EQ(h->warnings.size(), 2u);  // replaced, and short
}

TEST(VoxReader, ModelsAndVoxelsAreReadInOrder) {
  VoxBuilder b;
  b.model(3, 4, 5, {{2, 3, 4, 9}});
  b.model(256, 1, 256, {{255, 0, 255, 200}, {0, 0, 0, 1}});
  auto f = read_vox(b.bytes(), "m.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  ASSERT_EQ(f->models.size(), 2u);
  EXPECT_EQ(f->models[0].size_z, 5u);
  EXPECT_EQ(f->models[1].voxels[0].x, 255);
  EXPECT_EQ(f->models[1].voxels[0].color, 200);
  EXPECT_EQ(f->voxel_count(), 3u);
  EXPECT_EQ(f->models[0].offset, 20);
}

TEST(VoxReader, UnknownChunkIsSkippedBySizeWithAWarning) {
  VoxBuilder b;
  const size_t unknown = b.chunk("zZZz", Bytes(37, 0xAB));
  b.model(1, 1, 1, {{0, 0, 0, 3}});
  b.chunk("rLIT", Bytes(5, 1));
  auto f = read_vox(b.bytes(), "u.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_EQ(f->models.size(), 1u);
  ASSERT_EQ(f->warnings.size(), 2u);
  EXPECT_EQ(f->warnings[0].offset, static_cast<int64_t>(unknown));
  EXPECT_NE(f->warnings[0].message.find("zZZz"), std::string::npos);
  EXPECT_NE(f->warnings[1].message.find("rLIT"), std::string::npos);
}

TEST(VoxReader, KnownSideChunksAreRead) {
  VoxBuilder b = one_model();
  Bytes note;
  testing::put_u32(note, 2);
  testing::put_str(note, "wood");
  testing::put_str(note, "");
  b.chunk("NOTE", note);
  Bytes imap(256);
  for (size_t i = 0; i < 256; ++i) imap[i] = static_cast<uint8_t>(255 - i);
  b.chunk("IMAP", imap);
  Bytes robj;
  testing::put_dict(robj, {{"_type", "_inf"}});
  b.chunk("rOBJ", robj);
  Bytes rcam;
  testing::put_u32(rcam, 3);
  testing::put_dict(rcam, {{"_mode", "pers"}});
  b.chunk("rCAM", rcam);
  Bytes pack;
  testing::put_u32(pack, 1);
  b.chunk("PACK", pack);
  auto f = read_vox(b.bytes(200), "s.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_EQ(f->version, 200u);
  EXPECT_EQ(f->notes, (std::vector<std::string>{"wood", ""}));
  ASSERT_TRUE(f->index_map.has_value());
  EXPECT_EQ((*f->index_map)[0], 255);
  ASSERT_EQ(f->render_objects.size(), 1u);
  ASSERT_EQ(f->cameras.size(), 1u);
  EXPECT_EQ(f->cameras[0].id, 3u);
  EXPECT_EQ(f->pack_models, 1u);
  EXPECT_TRUE(f->warnings.empty());
}

TEST(VoxReader, MaterialsKeepEmissionGlassMetalAndEveryProperty) {
  VoxBuilder b = one_model();
  b.matl(5, {{"_type", "_emit"}, {"_emit", "0.5"}, {"_flux", "2"}, {"_custom", "x"}});
  b.matl(6, {{"_type", "_glass"}, {"_alpha", "0.25"}, {"_rough", "0.1"}});
  b.matl(7, {{"_type", "_metal"}, {"_metal", "0.8"}, {"_rough", "0.3"}, {"_spec", "0.6"}});
  b.matl(256, {{"_type", "_diffuse"}});  // 256 is colour index 0 in newer files
  b.matl(8, {{"_type", "_glass"}, {"_trans", "0.7"}, {"_alpha", "0.1"}});
  Bytes matt;
  testing::put_u32(matt, 9);
  testing::put_u32(matt, 3);  // emissive
  const float w = 0.75f;
  uint32_t wbits;
  std::memcpy(&wbits, &w, 4);
  testing::put_u32(matt, wbits);
  testing::put_u32(matt, 0b11);  // two property values follow
  testing::put_u32(matt, 0);
  testing::put_u32(matt, 0);
  b.chunk("MATT", matt);
  auto f = read_vox(b.bytes(), "mat.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  const auto& m = f->materials;
  EXPECT_EQ(m[5].type, VoxMaterialType::kEmit);
  EXPECT_FLOAT_EQ(m[5].emit, 0.5f);
  EXPECT_FLOAT_EQ(m[5].flux, 2.0f);
  ASSERT_NE(dict_find(m[5].properties, "_custom"), nullptr);
  EXPECT_EQ(m[6].type, VoxMaterialType::kGlass);
  EXPECT_FLOAT_EQ(m[6].trans, 0.25f);
  EXPECT_FLOAT_EQ(m[6].rough, 0.1f);
  EXPECT_EQ(m[7].type, VoxMaterialType::kMetal);
  EXPECT_FLOAT_EQ(m[7].metal, 0.8f);
  EXPECT_FLOAT_EQ(m[7].spec, 0.6f);
  EXPECT_FLOAT_EQ(m[8].trans, 0.7f);  // _trans wins over _alpha
  EXPECT_TRUE(m[0].present);
  EXPECT_EQ(m[9].type, VoxMaterialType::kEmit);
  EXPECT_FLOAT_EQ(m[9].emit, 0.75f);
  EXPECT_FALSE(m[10].present);
}

TEST(VoxReader, MediaDensityAndOldStyleGlassWeightAreRead) {
  VoxBuilder b = one_model();
  b.matl(1, {{"_type", "_media"}, {"_d", "0.04"}, {"_g", "0.3"}});
  b.matl(2, {{"_type", "_media"}});  // no _d: the default density
  b.matl(3, {{"_type", "_glass"}, {"_weight", "0.8"}, {"_rough", "0.1"}});  // old files: _weight is how much glass
  b.matl(4, {{"_type", "_glass"}, {"_weight", "0.8"}, {"_alpha", "0.3"}});  // _alpha (and _trans) win over _weight
  b.matl(5, {{"_type", "_metal"}, {"_weight", "0.8"}});                     // _weight is glass-only
  b.matl(6, {{"_type", "_glass"}, {"_weight", "x"}});                       // not a number: ignored, warned
  auto f = read_vox(b.bytes(), "media.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  const auto& m = f->materials;
  EXPECT_EQ(m[1].type, VoxMaterialType::kMedia);
  EXPECT_FLOAT_EQ(m[1].density, 0.04f);
  EXPECT_FLOAT_EQ(m[2].density, 0.05f);
  EXPECT_FLOAT_EQ(m[3].trans, 0.8f);
  EXPECT_FLOAT_EQ(m[4].trans, 0.3f);
  EXPECT_FLOAT_EQ(m[5].trans, 0.0f);
  EXPECT_FLOAT_EQ(m[6].trans, 0.0f);
  ASSERT_EQ(f->warnings.size(), 1u);
  EXPECT_NE(f->warnings[0].message.find("_weight"), std::string::npos) << f->warnings[0].message;
}

TEST(VoxReader, SceneGraphNodesAndLayersAreRead) {
  VoxBuilder b = one_model();
  b.ntrn(0, 1, -1, {});
  b.ngrp(1, {2});
  b.ntrn(2, 3, 4, {{"_r", "17"}, {"_t", "-5 6 -7"}, {"_f", "0"}}, {{"_name", "chair"}, {"_hidden", "1"}});
  b.nshp(3, 0);
  b.layr(4, {{"_name", "props"}, {"_hidden", "1"}});
  auto f = read_vox(b.bytes(), "g.vox");
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  ASSERT_EQ(f->nodes.size(), 4u);
  const VoxNode& t = f->nodes[2];
  EXPECT_EQ(t.kind, VoxNodeKind::kTransform);
  EXPECT_EQ(t.name, "chair");
  EXPECT_TRUE(t.hidden);
  EXPECT_EQ(t.layer, 4);
  ASSERT_EQ(t.frames.size(), 1u);
  EXPECT_EQ(t.frames[0].translation, (std::array<int32_t, 3>{-5, 6, -7}));
  EXPECT_EQ(t.frames[0].rotation.encode(), 17);
  ASSERT_EQ(f->layers.size(), 1u);
  EXPECT_TRUE(f->layers[0].hidden);
  EXPECT_EQ(f->layers[0].name, "props");
}

// ---- bad input: each error carries the byte offset of the bad field and names the chunk ----

TEST(VoxReaderErrors, TooShortForTheHeader) {
  const Error e = read_error(Bytes{'V', 'O', 'X'});
  EXPECT_EQ(e.offset, 3);
  EXPECT_NE(e.message.find("truncated"), std::string::npos);
}

TEST(VoxReaderErrors, WrongMagic) {
  Bytes bytes = one_model().bytes();
  bytes[0] = 'P';
  const Error e = read_error(bytes);
  EXPECT_EQ(e.offset, 0);
  EXPECT_NE(e.message.find("magic"), std::string::npos);
}

TEST(VoxReaderErrors, WrongVersion) {
  const Error e = read_error(one_model().bytes(151));
  EXPECT_EQ(e.offset, 4);
  EXPECT_NE(e.message.find("version 151"), std::string::npos);
}

TEST(VoxReaderErrors, TruncatedFileInsideTheMainHeader) {
  Bytes bytes = one_model().bytes();
  bytes.resize(14);
  const Error e = read_error(bytes);
  EXPECT_EQ(e.offset, 14);
}

TEST(VoxReaderErrors, TruncatedFileCutInsideAChunk) {
  Bytes bytes = one_model().bytes();
  bytes.resize(bytes.size() - 3);  // inside the XYZI's voxels
  const Error e = read_error(bytes);
  EXPECT_EQ(e.offset, 8);  // MAIN declares more children than the file holds
  EXPECT_NE(e.message.find("'MAIN'"), std::string::npos);
  EXPECT_NE(e.message.find("end of the file"), std::string::npos);
}

TEST(VoxReaderErrors, FirstChunkIsNotMain) {
  Bytes bytes = one_model().bytes();
  bytes[8] = 'X';
  const Error e = read_error(bytes);
  EXPECT_EQ(e.offset, 8);
}

TEST(VoxReaderErrors, ChunkContentRunsPastItsParent) {
  VoxBuilder b = one_model();
  const size_t bad = b.size(1, 1, 1);
  b.xyzi({});
  Bytes bytes = b.bytes();
  testing::set_u32(bytes, bad + 4, 1000);  // SIZE declares 1000 content bytes
  const Error e = read_error(bytes);
  EXPECT_EQ(e.offset, static_cast<int64_t>(bad));
  EXPECT_NE(e.message.find("chunk 'SIZE'"), std::string::npos);
  EXPECT_NE(e.message.find("content size 1000"), std::string::npos);
}

TEST(VoxReaderErrors, ChunkChildrenRunPastItsParent) {
  VoxBuilder b = one_model();
  const size_t bad = b.chunk("NOTE", Bytes{0, 0, 0, 0});
  Bytes bytes = b.bytes();
  testing::set_u32(bytes, bad + 8, 9);
  const Error e = read_error(bytes);
  EXPECT_EQ(e.offset, static_cast<int64_t>(bad));
  EXPECT_NE(e.message.find("children size 9"), std::string::npos);
}

TEST(VoxReaderErrors, ChunkHeaderCutByItsParent) {
  VoxBuilder b = one_model();
  Bytes bytes = b.bytes();
  const size_t at = bytes.size();
  bytes.insert(bytes.end(), {'R', 'G', 'B'});
  testing::set_u32(bytes, 16, static_cast<uint32_t>(bytes.size() - 20));
  const Error e = read_error(bytes);
  EXPECT_EQ(e.offset, static_cast<int64_t>(at));
}

TEST(VoxReaderErrors, ModelSizeZero) {
  VoxBuilder b;
  const size_t at = b.size(4, 0, 4);
  b.xyzi({});
  const Error e = read_error(b.bytes());
  EXPECT_EQ(e.offset, static_cast<int64_t>(at + 12 + 4));  // the y field
  EXPECT_NE(e.message.find("model size y = 0"), std::string::npos);
}

TEST(VoxReaderErrors, ModelSizeOver256) {
  VoxBuilder b;
  const size_t at = b.size(4, 4, 257);
  b.xyzi({});
  const Error e = read_error(b.bytes());
  EXPECT_EQ(e.offset, static_cast<int64_t>(at + 12 + 8));
  EXPECT_NE(e.message.find("257"), std::string::npos);
}

TEST(VoxReaderErrors, XyziCountPastItsChunk) {
  VoxBuilder b;
  b.size(2, 2, 2);
  const size_t at = b.xyzi({{0, 0, 0, 1}, {1, 1, 1, 1}});
  Bytes bytes = b.bytes();
  testing::set_u32(bytes, at + 12, 3);  // claims three voxels, holds two
  const Error e = read_error(bytes);
  EXPECT_EQ(e.offset, static_cast<int64_t>(at + 12));
  EXPECT_NE(e.message.find("chunk 'XYZI'"), std::string::npos);
  EXPECT_NE(e.message.find("count 3"), std::string::npos);
}

TEST(VoxReaderErrors, VoxelOutsideItsModel) {
  VoxBuilder b;
  b.size(2, 3, 4);
  const size_t at = b.xyzi({{1, 2, 3, 1}, {1, 3, 0, 1}});
  const Error e = read_error(b.bytes());
  EXPECT_EQ(e.offset, static_cast<int64_t>(at + 12 + 4 + 4));  // the second voxel
  EXPECT_NE(e.message.find("(1, 3, 0)"), std::string::npos);
}

TEST(VoxReaderErrors, XyziWithoutSizeAndSizeWithoutXyzi) {
  VoxBuilder a;
  const size_t at = a.xyzi({});
  EXPECT_EQ(read_error(a.bytes()).offset, static_cast<int64_t>(at));
  VoxBuilder b;
  const size_t s = b.size(1, 1, 1);
  EXPECT_EQ(read_error(b.bytes()).offset, static_cast<int64_t>(s));
}

TEST(VoxReaderErrors, InvalidRotationBytes) {
  for (const char* bad : {"3", "5", "12", "15", "128", "255", "-1", "x", "17.0", ""}) {
    VoxBuilder b = one_model();
    b.ntrn(0, 1, -1, {});
    b.ngrp(1, {2});
    const size_t at = b.ntrn(2, 3, 0, {{"_r", bad}});
    b.nshp(3, 0);
    const Error e = read_error(b.bytes());
    // content: id 4, attributes dict 4, child 4, reserved 4, layer 4, frame count 4, frame dict count 4,
    // key "_r" (4 + 2), then the value string's length field.
    EXPECT_EQ(e.offset, static_cast<int64_t>(at + 12 + 28 + 6)) << "rotation '" << bad << "'";
    EXPECT_NE(e.message.find("invalid rotation"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("chunk 'nTRN'"), std::string::npos);
  }
}

TEST(VoxReaderErrors, MalformedTranslation) {
  for (const char* bad : {"1 2", "1 2 3 4", "a b c", "1 2 99999999999"}) {
    VoxBuilder b = one_model();
    b.ntrn(0, 1, -1, {});
    b.ngrp(1, {2});
    const size_t at = b.ntrn(2, 3, 0, {{"_t", bad}});
    b.nshp(3, 0);
    const Error e = read_error(b.bytes());
    EXPECT_EQ(e.offset, static_cast<int64_t>(at + 12 + 28 + 6)) << bad;
    EXPECT_NE(e.message.find("translation"), std::string::npos);
  }
}

TEST(VoxReaderErrors, DictionaryWithABadStringLength) {
  VoxBuilder b = one_model();
  Bytes c;
  testing::put_u32(c, 0);          // node id
  testing::put_u32(c, 1);          // one attribute pair
  testing::put_u32(c, 500);        // key length 500: past the chunk
  c.insert(c.end(), 20, 'k');
  const size_t at = b.chunk("nGRP", c);
  const Error e = read_error(b.bytes());
  EXPECT_EQ(e.offset, static_cast<int64_t>(at + 12 + 8));
  EXPECT_NE(e.message.find("string length 500"), std::string::npos);
  EXPECT_NE(e.message.find("chunk 'nGRP'"), std::string::npos);
}

TEST(VoxReaderErrors, DictionaryCountThatCannotFit) {
  VoxBuilder b = one_model();
  Bytes c;
  testing::put_u32(c, 0);
  testing::put_u32(c, 0x40000000u);  // a billion pairs
  const size_t at = b.chunk("LAYR", c);
  const Error e = read_error(b.bytes());
  EXPECT_EQ(e.offset, static_cast<int64_t>(at + 12 + 4));
}

TEST(VoxReaderErrors, SceneGraphReferences) {
  {  // child that does not exist: offset of the child id field
    VoxBuilder b = one_model();
    const size_t at = b.ntrn(0, 7, -1, {});
    EXPECT_EQ(read_error(b.bytes()).offset, static_cast<int64_t>(at + 12 + 8));
  }
  {  // model id past the models
    VoxBuilder b = one_model();
    b.ntrn(0, 1, -1, {});
    const size_t at = b.nshp(1, 3);
    const Error e = read_error(b.bytes());
    EXPECT_EQ(e.offset, static_cast<int64_t>(at + 12 + 12));
    EXPECT_NE(e.message.find("model id 3"), std::string::npos);
  }
  {  // a cycle below the root: transform 2 points back at group 1
    VoxBuilder b = one_model();
    b.ntrn(0, 1, -1, {});
    b.ngrp(1, {2});
    const size_t at = b.ntrn(2, 1, 0, {});
    const Error e = read_error(b.bytes());
    EXPECT_EQ(e.offset, static_cast<int64_t>(at + 12 + 8));
    EXPECT_NE(e.message.find("cycle"), std::string::npos);
  }
  {  // shared nodes nested 30 deep unfold into 2^30 visits
    VoxBuilder b = one_model();
    const size_t root = b.ntrn(0, 1, -1, {});
    for (uint32_t level = 0; level < 30; ++level) {
      b.ngrp(1 + 2 * level, {2 + 2 * level, 2 + 2 * level});
      b.ntrn(2 + 2 * level, 3 + 2 * level, -1, {});
    }
    b.nshp(61, 0);
    const Error e = read_error(b.bytes());
    EXPECT_EQ(e.offset, static_cast<int64_t>(root));
    EXPECT_NE(e.message.find("unfolds"), std::string::npos);
  }
  {  // a cycle through the root
    VoxBuilder b = one_model();
    b.ntrn(0, 1, -1, {});
    const size_t at = b.ngrp(1, {0});
    const Error e = read_error(b.bytes());
    EXPECT_EQ(e.offset, static_cast<int64_t>(at + 12 + 12));
    EXPECT_NE(e.message.find("cycle"), std::string::npos);
  }
  {  // no root
    VoxBuilder b = one_model();
    const size_t at = b.ntrn(5, 6, -1, {});
    b.nshp(6, 0);
    EXPECT_EQ(read_error(b.bytes()).offset, static_cast<int64_t>(at));
  }
  {  // duplicate node id: offset of the second node's id field
    VoxBuilder b = one_model();
    b.ntrn(0, 1, -1, {});
    b.nshp(1, 0);
    const size_t at = b.nshp(1, 0);
    EXPECT_EQ(read_error(b.bytes()).offset, static_cast<int64_t>(at + 12));
  }
}

TEST(VoxReaderErrors, BadFileLeavesNoPartialWorld) {
  VoxBuilder b;
  b.model(2, 2, 2, {{0, 0, 0, 1}});
  b.size(2, 2, 2);
  b.xyzi({{0, 0, 0, 2}, {5, 0, 0, 2}});  // second model has a voxel outside its size
  const std::string path = ::testing::TempDir() + "/voxen_bad_partial.vox";
  {
    const Bytes bytes = b.bytes();
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  auto reg = BlockRegistry::load_default();
  ASSERT_TRUE(reg.ok());
  const size_t blocks_before = reg->size();
  World world;
  auto r = import_vox_file(world, *reg, path, {});
  ASSERT_FALSE(r.ok());
  EXPECT_GT(r.error().offset, 0);
  EXPECT_EQ(world.column_count(), 0u);
  EXPECT_EQ(reg->size(), blocks_before);
  std::remove(path.c_str());
}

TEST(VoxReaderErrors, OnlyRegularFilesOfBoundedSizeAreRead) {
  const std::string dir = ::testing::TempDir() + "/voxen_vox_files_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/adir.vox");
  // A directory: named, before any stream error.
  auto d = read_vox_file(dir + "/adir.vox");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().file, dir + "/adir.vox");
  EXPECT_NE(d.error().message.find("is a directory"), std::string::npos) << d.error().to_string();
  // /dev/zero never ends: refused by its type, nothing read.
  auto z = read_vox_file("/dev/zero");
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.error().file, "/dev/zero");
  EXPECT_NE(z.error().message.find("not a regular file"), std::string::npos) << z.error().to_string();
  // A (sparse) file one byte over the cap: refused by its size.
  const std::string big = dir + "/big.vox";
  {
    const Bytes bytes = one_model().bytes();
    std::ofstream(big, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  ASSERT_TRUE(read_vox_file(big).ok());  // the same file at its own size reads
  std::filesystem::resize_file(big, kMaxVoxFileBytes + 1);
  auto b = read_vox_file(big);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().file, big);
  EXPECT_NE(b.error().message.find("1073741825 bytes"), std::string::npos) << b.error().to_string();
  // A missing file is named too.
  auto m = read_vox_file(dir + "/none.vox");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().file, dir + "/none.vox");
  std::filesystem::remove_all(dir);
}

TEST(VoxReaderErrors, EveryPrefixOfAValidFileFailsCleanly) {
  VoxBuilder b;
  b.model(3, 3, 3, {{0, 1, 2, 1}, {2, 2, 2, 9}});
  b.ntrn(0, 1, -1, {});
  b.ngrp(1, {2});
  b.ntrn(2, 3, 0, {{"_r", "52"}, {"_t", "1 2 3"}});
  b.nshp(3, 0);
  b.layr(0, {{"_name", "a"}});
  b.rgba(ramp_palette());
  b.matl(1, {{"_type", "_glass"}});
  const Bytes full = b.bytes();
  ASSERT_TRUE(read_vox(full, "full.vox").ok());
  for (size_t n = 0; n < full.size(); ++n) {
    const Bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    auto r = read_vox(cut, "cut.vox");
    ASSERT_FALSE(r.ok()) << "prefix " << n;
    EXPECT_GE(r.error().offset, 0) << "prefix " << n;
    EXPECT_LE(r.error().offset, static_cast<int64_t>(n)) << "prefix " << n;
  }
}

}  // namespace
}  // namespace voxen::import
