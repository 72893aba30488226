// Stands in for <epoxy/gl.h> in src/play: see ../no_gl.h.
#include "../no_gl.h"
