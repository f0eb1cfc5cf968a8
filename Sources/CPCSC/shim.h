// libpcsclite (Debian: libpcsclite-dev): the PC/SC API of pcsc-lite, imported by TagReader only.
#include <PCSC/winscard.h>
#include <PCSC/wintypes.h>
#include <PCSC/pcsclite.h>
#include <PCSC/reader.h>
