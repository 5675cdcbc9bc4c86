#ifndef TG_VERSION_H
#define TG_VERSION_H
#define TOOLGEN_VERSION "0.1.0"
#endif
