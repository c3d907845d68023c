{
  description = "MACE: plans, builds and verifies multicore OpenPiton designs";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in
    {
      # `nix build`: maced and mace.
      packages = forAllSystems (pkgs: {
        default = pkgs.callPackage ./nix/package.nix { };
      });

      # `nix develop`: the compiler and libraries, plus what OpenPiton's own scripts need.
      devShells = forAllSystems (pkgs: {
        default = pkgs.callPackage ./nix/devshell.nix {
          mace = self.packages.${pkgs.stdenv.hostPlatform.system}.default;
        };
      });

      # NixOS: `services.maced` (the service, its socket, user, group and configuration).
      nixosModules.default = import ./nix/module.nix;

      # `nix flake check`: the test suite.
      checks = forAllSystems (pkgs: {
        tests = self.packages.${pkgs.stdenv.hostPlatform.system}.default.overrideAttrs (_: {
          doCheck = true;
        });
        # The module evaluates and yields a maced.service unit.
        module = (nixpkgs.lib.nixosSystem {
          inherit (pkgs.stdenv.hostPlatform) system;
          modules = [
            self.nixosModules.default
            {
              services.maced = { enable = true; checkouts = [ "/srv/openpiton/a" ]; };
              boot.isContainer = true;
              system.stateVersion = "24.11";
            }
          ];
        }).config.systemd.units."maced.service".unit;
      });
    };
}
