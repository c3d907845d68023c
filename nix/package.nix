{ lib, stdenv, meson, ninja, pkg-config, capnproto, libuv, sqlite, simdjson, curl, zlib
, openssl, systemd, gtest, git, bash, python3, jq, libxml2 }:

stdenv.mkDerivation {
  pname = "mace";
  version = "0.1.0";
  src = lib.cleanSource ./..;

  nativeBuildInputs = [ meson ninja pkg-config capnproto ];
  buildInputs = [ capnproto libuv sqlite simdjson curl zlib openssl systemd gtest ];
  nativeCheckInputs = [ git bash python3 jq libxml2 ];  # libxml2: xmllint checks JUnit XML

  # maced is a daemon (meson's sbindir), but Nix profiles and the NixOS module look in bin.
  mesonFlags = [ "--sbindir=bin" ];

  # The daemon tests start real processes on Unix sockets; they run in the sandbox.
  doCheck = false;
  checkPhase = ''
    runHook preCheck
    meson test --print-errorlogs
    runHook postCheck
  '';

  meta = {
    description = "Plans, builds and verifies multicore OpenPiton designs";
    license = lib.licenses.mit;
    platforms = lib.platforms.linux;
    mainProgram = "mace";
  };
}
