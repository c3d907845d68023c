# NixOS module: maced as a system service with socket activation, as systemd/maced.service
# and systemd/maced.socket describe it, plus its user, group and configuration file.
#
#   services.maced = {
#     enable = true;
#     checkouts = [ "/srv/openpiton/a" "/srv/openpiton/b" ];
#     llm = { backend = "vertex"; model = "gemini-2.5-flash"; environmentFile = "/run/secrets/maced.env"; };
#   };
#   users.users.alice.extraGroups = [ "mace" ];  # may submit runs

{ config, lib, pkgs, ... }:

let
  cfg = config.services.maced;
  inherit (lib) mkOption mkEnableOption mkIf types literalExpression optionalAttrs;

  checkoutType = types.coercedTo types.str (path: { inherit path; }) (types.submodule {
    options = {
      path = mkOption {
        type = types.str;
        description = "Absolute path of an OpenPiton checkout maced owns (patched with scripts/patch_openpiton.sh).";
      };
      node = mkOption {
        type = types.str;
        default = "local";
        description = "The machine that holds the checkout.";
      };
    };
  });

  # daemon/maced/config.h: every field optional, unknown fields are errors.
  configJson = {
    checkouts = map (c: { inherit (c) path node; }) cfg.checkouts;
    llm = { backend = cfg.llm.backend; }
      // optionalAttrs (cfg.llm.model != null) { model = cfg.llm.model; }
      // optionalAttrs (cfg.llm.prices != { }) { prices = cfg.llm.prices; };
    # docs/slurm.md: the Slurm commands default to the package's.
    executor = if cfg.executor.kind == "slurm"
      then { kind = "slurm"; slurm = { bin_dir = "${cfg.executor.slurmPackage}/bin"; } // cfg.executor.slurm; }
      else { kind = "local"; };
  } // cfg.extraConfig;

  configFile = pkgs.writeText "maced.json" (builtins.toJSON configJson);

  # What OpenPiton's sims needs on PATH besides the checkout's own tools.
  toolPath = with pkgs; [
    bash coreutils findutils gnugrep gnused gawk gnumake gcc binutils git python3 perl
    tcsh bison flex dtc verilator
    pkgsCross.riscv64-embedded.buildPackages.gcc
  ] ++ lib.optional (cfg.executor.kind == "slurm") cfg.executor.slurmPackage
    ++ cfg.extraPackages;
in
{
  options.services.maced = {
    enable = mkEnableOption "maced, the MACE daemon that plans, builds and verifies OpenPiton designs";

    package = mkOption {
      type = types.package;
      default = pkgs.callPackage ./package.nix { };
      defaultText = literalExpression "pkgs.callPackage ./package.nix { }";
      description = "The package providing maced and mace.";
    };

    user = mkOption {
      type = types.str;
      default = "maced";
      description = "The user maced runs as; it owns the state directory and must be able to write the checkouts.";
    };

    group = mkOption {
      type = types.str;
      default = "mace";
      description = "The group whose members may use maced's socket.";
    };

    stateDirectory = mkOption {
      type = types.str;
      default = "maced";
      description = "The state directory under /var/lib (systemd's StateDirectory=); holds mace.db.";
    };

    checkouts = mkOption {
      type = types.listOf checkoutType;
      default = [ ];
      example = [ "/srv/openpiton/a" { path = "/srv/openpiton/b"; node = "local"; } ];
      description = ''
        The OpenPiton checkouts maced owns. Each is made writable for the service
        (ReadWritePaths=); maced's user must own it.
      '';
    };

    llm = {
      backend = mkOption {
        type = types.enum [ "vertex" "claude" "opencode" "antigravity" "direct" ];
        default = "vertex";
        description = "The LLM backend for runs whose spec names none.";
      };
      model = mkOption {
        type = types.nullOr types.str;
        default = null;
        example = "gemini-2.5-flash";
        description = "The model for runs whose spec names none; null: the backend's default.";
      };
      prices = mkOption {
        type = types.attrsOf (types.attrsOf types.number);
        default = { };
        example = { "gemini-2.5-flash" = { input = 0.30; output = 2.50; thinking = 2.50; }; };
        description = "USD per million input, output and thinking tokens, replacing built-in prices.";
      };
      environmentFile = mkOption {
        type = types.nullOr types.path;
        default = null;
        example = "/run/secrets/maced.env";
        description = ''
          A file of KEY=value lines with the backend's credentials (MACE_VERTEX_ACCESS_TOKEN,
          GOOGLE_APPLICATION_CREDENTIALS, GOOGLE_CLOUD_PROJECT, ...). Kept out of the Nix
          store: give a path outside it.
        '';
      };
    };

    executor = {
      kind = mkOption {
        type = types.enum [ "local" "slurm" ];
        default = "local";
        description = ''
          Where checkouts run their builds and simulations: on this machine, or as Slurm jobs
          pinned to each checkout's node (then every checkout's `node` is a Slurm node name,
          and its path must be the same here and on that node).
        '';
      };
      slurm = mkOption {
        type = types.attrs;
        default = { };
        example = literalExpression ''
          {
            partition = "piton";
            gres = "openpiton:1";
            build = { cpus = 4; memory_mb = 12000; time_limit_min = 240; };
            simulate = { cpus = 1; memory_mb = 2000; };
            environment = { SLURM_CONF = "/etc/slurm/slurm.conf"; };
          }
        '';
        description = ''
          The `executor.slurm` object of maced's configuration (docs/slurm.md): partition, account, qos, gres, build, simulate, cores, srun_options,
          pending_limit_s, cleanup_limit_s, bin_dir, environment. maced checks every field at
          start and refuses to start naming the wrong one.
        '';
      };
      slurmPackage = mkOption {
        type = types.package;
        default = pkgs.slurm;
        defaultText = literalExpression "pkgs.slurm";
        description = ''
          The Slurm whose srun, squeue, sinfo and scancel maced runs (the default `bin_dir`);
          it must match the cluster's version. The host also needs munge with the cluster's key.
        '';
      };
    };

    extraConfig = mkOption {
      type = types.attrs;
      default = { };
      description = "More top-level fields of maced's configuration file, merged over the ones above.";
    };

    extraPackages = mkOption {
      type = types.listOf types.package;
      default = [ ];
      description = "More programs on maced's PATH (for example the claude or opencode CLI).";
    };

    watchdogSec = mkOption {
      type = types.int;
      default = 30;
      description = "WatchdogSec= of the service; maced pings at half of it.";
    };
  };

  config = mkIf cfg.enable {
    assertions = [
      {
        assertion = builtins.all (c: lib.hasPrefix "/" c.path) cfg.checkouts;
        message = "services.maced.checkouts must be absolute paths.";
      }
      {
        assertion = cfg.executor.kind != "slurm" || builtins.all (c: c.node != "local") cfg.checkouts;
        message = "services.maced.executor.kind = \"slurm\" needs every checkout's node to be a Slurm node name.";
      }
    ];

    environment.systemPackages = [ cfg.package ];

    users.groups.${cfg.group} = { };
    users.users.${cfg.user} = {
      isSystemUser = true;
      group = cfg.group;
      description = "MACE daemon";
      home = "/var/lib/${cfg.stateDirectory}";
    };

    systemd.sockets.maced = {
      description = "MACE daemon socket";
      wantedBy = [ "sockets.target" ];
      socketConfig = {
        ListenStream = "/run/maced/maced.sock";
        SocketUser = cfg.user;
        SocketGroup = cfg.group;
        SocketMode = "0660";
        DirectoryMode = "0755";
      };
    };

    systemd.services.maced = {
      description = "MACE daemon: plans, builds and verifies OpenPiton designs";
      requires = [ "maced.socket" ];
      after = [ "maced.socket" "network-online.target" ];
      wants = [ "network-online.target" ];
      wantedBy = [ "multi-user.target" ];
      path = toolPath;
      serviceConfig = {
        Type = "notify";
        ExecStart = "${cfg.package}/bin/maced --config ${configFile}";
        User = cfg.user;
        Group = cfg.group;
        StateDirectory = cfg.stateDirectory;
        StateDirectoryMode = "0700";
        RuntimeDirectory = "maced";
        RuntimeDirectoryPreserve = true;
        EnvironmentFile = lib.optional (cfg.llm.environmentFile != null) cfg.llm.environmentFile;

        WatchdogSec = cfg.watchdogSec;
        Restart = "on-failure";
        # 2: a bad configuration; 3: a state maced cannot serve (maced(8), EXIT STATUS).
        RestartPreventExitStatus = "2 3";
        RestartSec = 5;
        KillMode = "control-group";
        TimeoutStopSec = 75;
        # As in systemd/maced.service: the store, builds, simulations and up to
        # `connections.max` clients need more than the default 1024 descriptors.
        LimitNOFILE = 65536;

        NoNewPrivileges = true;
        ProtectSystem = "strict";
        ReadWritePaths = map (c: c.path) cfg.checkouts;
        PrivateTmp = true;
        ProtectHome = "read-only";
        PrivateDevices = true;
        ProtectKernelTunables = true;
        ProtectKernelModules = true;
        ProtectKernelLogs = true;
        ProtectControlGroups = true;
        ProtectClock = true;
        ProtectHostname = true;
        ProtectProc = "invisible";
        RestrictSUIDSGID = true;
        RestrictNamespaces = true;
        RestrictRealtime = true;
        LockPersonality = true;
        RestrictAddressFamilies = [ "AF_UNIX" "AF_INET" "AF_INET6" "AF_NETLINK" ];
        SystemCallArchitectures = "native";
        UMask = "0077";
      };
    };
  };
}
