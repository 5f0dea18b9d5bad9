#!/bin/sh
# Regenerates the text-form fixtures (tests/fixtures/text/) and the ConfigFile corpus
# (tests/fixtures/configfile/) with the real engines:
#
#   scripts/gen-text-fixtures.sh [BIN_DIR] [--only text|configfile]
#
# BIN_DIR holds the wrappers godot3.2, godot3.6 and godot4 (scripts/setup-godot.sh makes
# them); default $GODOT_BIN, else <repo>/.godot-oracles/bin. Needs python3. The work is
# done by gen-text-fixtures.py (see its header for the list of files it writes).
set -eu
exec python3 "$(dirname "$0")/gen-text-fixtures.py" "$@"
