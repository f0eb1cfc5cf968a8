import TagCore
import TagRouter

extension RouterConfig {
    /// What `read --config` and `watch --config` print for an event: with a `sun:` section, its
    /// SUN check as `--explain` makes it (against the counters the daemon accepted, without counting).
    var sunPreview: @Sendable (TagEvent) -> TagEvent {
        guard let sun else { return { $0 } }
        return { sun.preview($0) }
    }
}
