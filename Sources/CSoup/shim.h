#include <libsoup/soup.h>
