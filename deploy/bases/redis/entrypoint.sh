#!/bin/sh
# As the public image: arguments that start with a flag go to redis-server, and redis-server runs
# with protected mode off unless the command says otherwise (a later option wins).
set -e
case "$1" in
    -*) set -- redis-server "$@" ;;
esac
if [ "$1" = redis-server ]; then
    shift
    set -- redis-server --protected-mode no "$@"
fi
exec "$@"
