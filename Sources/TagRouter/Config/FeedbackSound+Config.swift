import SystemKit
import TagCore

/// `readers[].feedback.sound` is TagCore's `FeedbackSound`: its keys are
/// declared here once, and `load` checks at load what playing needs — the
/// player installed, each file a readable regular file of bounded size — so a
/// missing file is a line:col error, not a silent tap.
extension FeedbackSound {
    /// The largest sound file accepted (about 90 s of CD-quality WAV).
    public static let fileLimit = 16 << 20
    /// The longest `timeout` accepted.
    static let timeoutLimit: Duration = .seconds(60)

    /// The options of `readers[].feedback.sound`.
    public static let spec = OptionSpec("the host's sound for a reader's moments", [
        Option(
            "player", .choice(["auto"] + Player.allCases.map(\.rawValue)), default: "auto",
            "what plays the files: `auto` takes `pw-play` when a PipeWire session is reachable, else `paplay` when a PulseAudio one is, else `aplay` (ALSA), whichever is installed"),
        Option("device", .string, "where the player plays: `pw-play --target`, `paplay --device`, `aplay -D` (e.g. `plughw:1,0`); default: the player's own"),
        Option("timeout", .duration, default: "10s", "a sound still playing after this is stopped (at most 1m)"),
        Option("arrival", .string, "file played when a tag arrives, before routing"),
        Option("success", .string, "file played when every action of the matched routes was delivered"),
        Option("failure", .string, "file played when an action failed, was dropped, or was kept in the spool for later"),
        Option("no_match", .string, "file played when no route matched the tag"),
        Option("refused", .string, "file played when a matched route asks `known: false` and the tag is not in `tags:`"),
    ])

    /// Reads a validated `sound` section; nil with the problems in `errors` when it cannot play.
    static func load(_ section: ConfigValue, _ errors: inout ConfigErrors) -> FeedbackSound? {
        let before = errors.errors.count
        var files: [ReaderFeedback.Moment: String] = [:]
        let timeout = section.duration("timeout")
        if timeout <= .zero || timeout > timeoutLimit {
            errors.append(contentsOf: section.error("timeout", "expected a duration above 0 and at most 1m, got \(timeout)"))
        }
        let found = findPlayer(section, &errors)
        for moment in ReaderFeedback.Moment.allCases {
            guard let path = section.optionalString(moment.rawValue) else { continue }
            let resolved = section.context.resolve(path)
            if let problem = SoundFile(path: resolved).problem(for: found?.player) {
                errors.append(contentsOf: section.error(moment.rawValue, problem))
            }
            files[moment] = resolved
        }
        if files.isEmpty {
            errors.append(ConfigError(mark: section.mark, path: section.path, message: "no moment has a file: nothing is played (add e.g. `success: /usr/share/sounds/ok.wav`)", isWarning: true))
        }
        guard errors.errors.count == before, let found else { return nil }
        return FeedbackSound(player: found.player, program: found.program, device: section.optionalString("device"), timeout: timeout, files: files)
    }

    /// The configured player (or the one `auto` picks) and its executable; nil, with the problem in `errors`, when it is not installed.
    private static func findPlayer(_ section: ConfigValue, _ errors: inout ConfigErrors) -> (player: Player, program: String)? {
        let environment = section.context.environment
        let searchPath = environment["PATH"] ?? ExecutableSearch.defaultPath
        let installed = Player.allCases.compactMap { player in ExecutableSearch.find(player.rawValue, in: searchPath).map { (player, $0) } }
        let chosen = section.string("player")
        if let player = Player(rawValue: chosen) {
            if let found = installed.first(where: { $0.0 == player }) { return found }
            errors.append(contentsOf: section.error("player", "\(chosen) is not installed (searched PATH \(searchPath)); install Debian's `\(player.package)` or choose another player"))
            return nil
        }
        // A player whose sound server is not there fails at every tap: one that can play comes first.
        if let found = installed.first(where: { SoundServer(player: $0.0, environment: environment).isReachable }) ?? installed.first { return found }
        errors.append(contentsOf: section.error(
            "player", "no sound player is installed (searched PATH \(searchPath) for pw-play, paplay, aplay); install Debian's `alsa-utils` (aplay) or `pipewire-bin` (pw-play)"))
        return nil
    }
}
