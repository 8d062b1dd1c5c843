#!/bin/sh
exec "$(dirname "$0")/kafka-run-strand.sh" storage "$@"
