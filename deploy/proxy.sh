#!/usr/bin/env bash
# nginx in front of the app on this machine, as in production (deploy/nginx/tankodrom.conf.template): static files
# from var/static, the shared answers of finished public tests micro-cached, everything else passed to gunicorn.
#   deploy/proxy.sh up [LISTEN] [UPSTREAM]   start it (default: TANKODROM_PROXY_BIND, else 127.0.0.1:8080; upstream
#                                            TANKODROM_BIND); installs Debian's nginx when it is missing
#   deploy/proxy.sh down                     stop it
# Its files (config, cache, logs, pid) live under var/nginx; a second instance (the benchmark's) passes its own
# TANKODROM_PROXY_DIR.
source "$(dirname "$0")/lib.sh"

PROXY_DIR="${TANKODROM_PROXY_DIR:-$VAR/nginx}"
PIDFILE="$PROXY_DIR/nginx.pid"

render() { # render LISTEN UPSTREAM: the main config for this prefix, the site from the shared template
  local listen=$1 upstream=$2
  mkdir -p "$PROXY_DIR/cache" "$PROXY_DIR/temp" "$PROXY_DIR/conf.d"
  TANKODROM_PROXY_LISTEN="$listen" TANKODROM_PROXY_UPSTREAM="$upstream" \
    TANKODROM_PROXY_CACHE_DIR="$PROXY_DIR/cache" TANKODROM_PROXY_STATIC_PARENT="$VAR" \
    TANKODROM_PROXY_EXTRA_DIR="$PROXY_DIR/conf.d" \
    envsubst '${TANKODROM_PROXY_LISTEN} ${TANKODROM_PROXY_UPSTREAM} ${TANKODROM_PROXY_CACHE_DIR} ${TANKODROM_PROXY_STATIC_PARENT} ${TANKODROM_PROXY_EXTRA_DIR}' \
    <"$ROOT/deploy/nginx/tankodrom.conf.template" >"$PROXY_DIR/tankodrom.conf"
  cat >"$PROXY_DIR/nginx.conf" <<CONF
# Written by deploy/proxy.sh; the site is tankodrom.conf (from deploy/nginx/tankodrom.conf.template).
user $(id -un);
worker_processes ${TANKODROM_PROXY_WORKERS:-1};
pid $PIDFILE;
error_log $PROXY_DIR/error.log warn;
events { worker_connections 8192; }
worker_rlimit_nofile 20000;
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 30s;
    client_body_temp_path $PROXY_DIR/temp/body;
    proxy_temp_path $PROXY_DIR/temp/proxy;
    fastcgi_temp_path $PROXY_DIR/temp/fastcgi;
    uwsgi_temp_path $PROXY_DIR/temp/uwsgi;
    scgi_temp_path $PROXY_DIR/temp/scgi;
    include $PROXY_DIR/tankodrom.conf;
}
CONF
}

case "${1:-up}" in
  up)
    command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || apt_install nginx-light
    NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
    listen="${2:-${TANKODROM_PROXY_BIND:-127.0.0.1:8080}}"
    upstream="${3:-$TANKODROM_BIND}"
    [[ -d "$VAR/static" ]] || "$PY" "$ROOT/manage.py" collectstatic --noinput -v 0
    if pid_alive "$PIDFILE"; then "$0" down; fi
    render "$listen" "$upstream"
    "$NGINX" -t -q -p "$PROXY_DIR" -c "$PROXY_DIR/nginx.conf" -e "$PROXY_DIR/error.log"
    "$NGINX" -p "$PROXY_DIR" -c "$PROXY_DIR/nginx.conf" -e "$PROXY_DIR/error.log"
    wait_for 10 "nginx" test -s "$PIDFILE"
    say "proxy: http://$listen -> $upstream (static from $VAR/static, cache in $PROXY_DIR/cache)"
    ;;
  down)
    stop_pidfile "$PIDFILE" nginx
    ;;
  *) die "usage: $0 up [LISTEN] [UPSTREAM] | down" ;;
esac
