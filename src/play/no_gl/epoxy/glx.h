// Stands in for <epoxy/glx.h> in src/play: see ../no_gl.h.
#include "../no_gl.h"
