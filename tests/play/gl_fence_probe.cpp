// Compiled with the play module's include path by the PlayHasNoGl test (tests/CMakeLists.txt), which passes only
// when this include stops the compile with the fence's message (src/play/no_gl/).
#include <epoxy/gl.h>

unsigned probe_gl_error() { return glGetError(); }
