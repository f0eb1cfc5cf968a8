import TagRouter

/// Every action plugin built into the `tagrouter` tool: the one place that
/// lists them. A config may use exactly these action names.
let builtinPlugins = PluginRegistry([
    LogPlugin.self,
])
