import TagRouter
import TagRouterDaemon

/// How the commands that read a config (`check-config`, `watch`, `read`, `doctor`) report it.
extension ConfigFile {
    /// The config `--config` names (nil: the search path), or a usage error.
    static func named(_ explicit: String?) throws(CLIError) -> ConfigFile {
        do throws(DaemonError) { return try ConfigFile(explicit: explicit) } catch { throw CLIError(error) }
    }

    /// Loads or fails with every problem on stderr and the exit status for bad data;
    /// warnings go to stderr either way.
    func loadOrExit(_ loader: ConfigLoader) throws(CLIError) -> RouterConfig {
        do {
            let config = try load(loader)
            printWarnings(config)
            return config
        } catch {
            throw CLIError(.config(error, file: name))
        }
    }

    /// The config's warnings, on stderr.
    func printWarnings(_ config: RouterConfig) {
        var warnings = ConfigErrors()
        warnings.warnings = config.warnings
        for line in warnings.lines() { printToStderr(line) }
    }
}
