// cairo (libcairo2-dev, which GTK brings): the editor's straightening turns a photo's decoded
// pixels by any angle with pixman's bilinear filter, in a decoder helper (no GTK there).
#include <cairo.h>
