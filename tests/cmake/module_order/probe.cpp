// A source for the module order probe's libraries (CMakeLists.txt beside it); the probe is only configured.
int voxen_module_order_probe() { return 0; }
