// Stands in for <GL/glext.h> in src/play: see ../no_gl.h.
#include "../no_gl.h"
