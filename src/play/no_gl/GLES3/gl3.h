// Stands in for <GLES3/gl3.h> in src/play: see ../no_gl.h.
#include "../no_gl.h"
