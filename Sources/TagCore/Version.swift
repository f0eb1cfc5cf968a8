/// The tagrouter release: printed by `--version`, announced to Home Assistant as
/// `sw_version`, sent in the exec plugin hello.
public let tagrouterVersion = "0.1.0"
