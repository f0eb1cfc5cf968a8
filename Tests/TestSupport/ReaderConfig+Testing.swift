import TagCore

extension ReaderConfig {
    /// A reader for tests: no cooldown or exit delay and 20 ms polls unless
    /// given. (The daemon's defaults are in the router's `readers:` spec.)
    public static func testing(
        name: String, device: String = "auto", cooldown: Duration = .zero, exitDelay: Duration = .zero, ignoreOnConnect: Bool = false,
        hold: Duration? = nil, pollInterval: Duration = .milliseconds(20), watchdog: Duration = .seconds(10)
    ) -> ReaderConfig {
        ReaderConfig(
            name: name, device: device, cooldown: cooldown, exitDelay: exitDelay, ignoreOnConnect: ignoreOnConnect, hold: hold,
            pollInterval: pollInterval, polling: .autoPoll, watchdog: watchdog, ifBusy: .wait)
    }
}
