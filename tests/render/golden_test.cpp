// Golden images (tests/golden/): each scene of scenes.txt is rendered twice through `voxen shot` (the two must be
// identical files), then compared with its golden PNG: strictly (every byte) when this machine's GL_RENDERER is
// the one recorded beside the golden (NAME.renderer), in look mode (imgdiff's rule: <= 0.05% of pixels off by more
// than 6/255, no blob over 32 px) on any other renderer. Goldens change only through scripts/update-golden.sh,
// which wants a reason and appends it to tests/golden/CHANGELOG.md.
#include <gtest/gtest.h>

#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "shot_support.h"
#include "voxen/render/imgdiff.h"

using namespace voxen;
using voxen::testing::file_bytes;
using voxen::testing::run_shot;

namespace {

const std::string kGoldenDir = std::string(VOXEN_SOURCE_DIR) + "/tests/golden/";

struct Scene {
  std::string name;
  std::vector<std::string> args;
};

// gtest prints a failing parameter by name, not as bytes.
void PrintTo(const Scene& s, std::ostream* os) { *os << s.name; }

std::vector<Scene> scenes() {
  std::vector<Scene> out;
  std::ifstream in(kGoldenDir + "scenes.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    Scene s{line.substr(0, tab), {}};
    std::istringstream words(line.substr(tab + 1));
    for (std::string w; words >> w;) s.args.push_back(w);
    out.push_back(std::move(s));
  }
  return out;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

class Golden : public ::testing::TestWithParam<Scene> {};

TEST_P(Golden, RendersTwiceIdenticallyAndMatchesItsGolden) {
  const Scene& scene = GetParam();
  const auto a = run_shot(scene.args, "", true);
  const auto b = run_shot(scene.args, "", true);
  ASSERT_EQ(a.run.exit_code, 0) << a.run.err;
  ASSERT_EQ(b.run.exit_code, 0) << b.run.err;
  EXPECT_EQ(file_bytes(a.path), file_bytes(b.path)) << scene.name << ": two renders of one scene differ";

  auto golden = render::load_png(kGoldenDir + scene.name + ".png");
  ASSERT_TRUE(golden.ok()) << golden.error().message << " (" << scene.name << ".png): make it with scripts/update-golden.sh "
                           << scene.name << " --reason \"...\"";
  const std::string recorded = trimmed(file_bytes(kGoldenDir + scene.name + ".renderer"));
  const std::string here = a.json["gl_renderer"].get<std::string>();
  const bool same_renderer = recorded == here;
  const render::DiffMode mode = same_renderer ? render::DiffMode::kStrict : render::DiffMode::kLook;
  const render::DiffResult r = render::compare_images(a.image, *golden, mode);
  if (!r.pass) {
    const std::string diff = voxen::testing::temp_path(scene.name + "_diff");
    (void)render::save_png(render::diff_image(a.image, *golden), diff);
    ADD_FAILURE() << scene.name << ": differs from its golden (" << (same_renderer ? "strict" : "look") << " mode; golden by '"
                  << recorded << "', this run by '" << here << "'): " << r.pixels_differing << " pixels differ, "
                  << r.pixels_failing << " by more than 6/255, largest blob " << r.largest_blob << " px. New picture: "
                  << a.path << ", differences: " << diff
                  << ". If the change is intended: scripts/update-golden.sh " << scene.name << " --reason \"...\"";
    return;
  }
  std::remove(a.path.c_str());
  std::remove(b.path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Scenes, Golden, ::testing::ValuesIn(scenes()),
                         [](const ::testing::TestParamInfo<Scene>& p) { return p.param.name; });

// The ray-march path (issue 21) draws each golden scene twice with identical bytes, and as the raster path's golden
// by the look rule (<= 0.05% of the pixels off by more than 6/255, no blob over 32 px).
class RayMarchGolden : public ::testing::TestWithParam<Scene> {};

TEST_P(RayMarchGolden, RendersTwiceIdenticallyAndAsTheRasterGoldenByTheLookRule) {
  const Scene& scene = GetParam();
  std::vector<std::string> args = scene.args;
  args.insert(args.end(), {"--render-path", "raymarch"});
  const auto a = run_shot(args, "", true);
  const auto b = run_shot(args, "", true);
  ASSERT_EQ(a.run.exit_code, 0) << a.run.err;
  ASSERT_EQ(b.run.exit_code, 0) << b.run.err;
  EXPECT_EQ(a.json["render_path"], "raymarch");
  EXPECT_EQ(file_bytes(a.path), file_bytes(b.path)) << scene.name << ": two ray-marched renders of one scene differ";
  auto golden = render::load_png(kGoldenDir + scene.name + ".png");
  ASSERT_TRUE(golden.ok()) << golden.error().message;
  const render::DiffResult r = render::compare_images(a.image, *golden, render::DiffMode::kLook);
  std::printf("%s: %llu pixels differ from the raster golden, %llu by more than 6/255, largest blob %llu\n",
              scene.name.c_str(), static_cast<unsigned long long>(r.pixels_differing),
              static_cast<unsigned long long>(r.pixels_failing), static_cast<unsigned long long>(r.largest_blob));
  EXPECT_TRUE(r.pass) << scene.name << ": the ray march differs from the raster golden by more than the look rule; "
                      << "picture: " << a.path;
  if (r.pass) {
    std::remove(a.path.c_str());
    std::remove(b.path.c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Scenes, RayMarchGolden, ::testing::ValuesIn(scenes()),
                         [](const ::testing::TestParamInfo<Scene>& p) { return p.param.name; });

TEST(GoldenFiles, EverySceneHasAGoldenARendererAndAChangelogEntry) {
  const auto all = scenes();
  ASSERT_GE(all.size(), 4u);
  const std::string log = file_bytes(kGoldenDir + "CHANGELOG.md");
  for (const Scene& s : all) {
    EXPECT_FALSE(file_bytes(kGoldenDir + s.name + ".png").empty()) << s.name;
    EXPECT_FALSE(trimmed(file_bytes(kGoldenDir + s.name + ".renderer")).empty()) << s.name;
    EXPECT_NE(log.find("`" + s.name + "`"), std::string::npos) << s.name << " has no CHANGELOG.md entry";
  }
}

TEST(GoldenFiles, UpdatingAGoldenWantsAReason) {
  const auto r = voxen::testing::run_voxen({}, "bash " + std::string(VOXEN_SOURCE_DIR) + "/scripts/update-golden.sh flat_day --voxen");
  // The command line above is "bash update-golden.sh flat_day --voxen <voxen>": no --reason.
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--reason"), std::string::npos) << r.err;
}

}  // namespace
