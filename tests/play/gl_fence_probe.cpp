// Compiled with the play module's include path by the PlayHasNoGl test, and with playtest's by PlaytestHasNoGl
// (tests/CMakeLists.txt), which pass only when this include stops the compile with the fence's message
// (src/play/no_gl/).
#include <epoxy/gl.h>

unsigned probe_gl_error() { return glGetError(); }
