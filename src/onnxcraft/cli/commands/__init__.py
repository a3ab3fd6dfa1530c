"""The subcommands of ``onnxcraft``, one module each: ``add_arguments(parser)`` declares its
options, ``run(args) -> int`` does the work and returns the exit status. Each is listed in
:data:`onnxcraft.cli.registry.COMMANDS` and imported only when it is the one asked for."""
