// libsystemd (Debian: libsystemd-dev): sd_notify(3) and the journal's sd_journal_sendv(3).
#include <sys/uio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
