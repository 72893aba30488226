// Compiled with the play module's include path by the PlayHasNoOpenAl test, and with playtest's by
// PlaytestHasNoOpenAl (tests/CMakeLists.txt), which pass only when this include stops the compile with the fence's
// message (src/play/no_gl/AL/, src/play/no_gl/no_al.h): play's sounds go through voxen::audio, which alone
// includes OpenAL.
#include <AL/al.h>

int probe_al_error() { return alGetError(); }
