// Included by the headers beside it, which stand in for OpenGL's on the play and playtest modules' include paths
// (searched before /usr/include): play holds the game's rules and draws through voxen::render (Renderer, Overlay,
// read_depth, take_gl_error), which makes every GL call (docs/ARCHITECTURE.md, Modules); playtest, its measuring
// tools, reads back through render as well.
#error "voxen::play makes no GL calls: a GL header was included from src/play (or src/playtest, behind the same fence); draw through voxen::render instead"
