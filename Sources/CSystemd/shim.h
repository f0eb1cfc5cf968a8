// libsystemd (Debian: libsystemd-dev): sd_notify(3), sd_watchdog_enabled(3) and the journal's sd_journal_sendv(3).
// Nothing links it: the Systemd module opens libsystemd.so.0 with dlopen the first time the daemon talks to
// systemd (LibSystemd.swift), so these headers give the prototypes of the entry points it looks up by name.
#include <sys/uio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

typedef __typeof__(&sd_notify) tagrouter_sd_notify_fn;
typedef __typeof__(&sd_watchdog_enabled) tagrouter_sd_watchdog_enabled_fn;
typedef __typeof__(&sd_journal_sendv) tagrouter_sd_journal_sendv_fn;
