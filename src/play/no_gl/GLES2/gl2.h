// Stands in for <GLES2/gl2.h> in src/play: see ../no_gl.h.
#include "../no_gl.h"
