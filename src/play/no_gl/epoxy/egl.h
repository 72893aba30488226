// Stands in for <epoxy/egl.h> in src/play: see ../no_gl.h.
#include "../no_gl.h"
