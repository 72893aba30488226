// Stands in for <AL/al.h> in src/play: see ../no_al.h.
#include "../no_al.h"
