// libgweather (libgweather-4-dev), GNOME's database of the world's towns and weather stations,
// read offline: the nearest town to where a photo was taken.
#define GWEATHER_I_KNOW_THIS_IS_UNSTABLE 1
#include <libgweather/gweather.h>
