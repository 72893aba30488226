// Stands in for <AL/alc.h> in src/play: see ../no_al.h.
#include "../no_al.h"
