// Stands in for <GL/glcorearb.h> in src/play: see ../no_gl.h.
#include "../no_gl.h"
