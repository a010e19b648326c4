#!/usr/bin/env bash
# The application processes: gunicorn (UI + API), two Celery workers (the tank stream's, with the beat scheduler,
# and the uploads'; see start_workers in lib.sh) and nginx in front of gunicorn as in production (deploy/proxy.sh,
# on TANKODROM_PROXY_BIND; TANKODROM_PROXY=0 leaves it out).
#   deploy/app.sh run    set up, then serve in the foreground; Ctrl-C stops what this started
#   deploy/app.sh up     the same in the background (logs and pid files under var/)
#   deploy/app.sh down   stop what `up` started
source "$(dirname "$0")/lib.sh"

start_processes() {
  cd "$ROOT"
  say "serving http://$TANKODROM_BIND (gunicorn) with Celery workers"
  # setsid: Ctrl-C in the terminal reaches only this script, which then stops the processes in order.
  setsid nohup "$ROOT/.venv/bin/gunicorn" -c "$ROOT/deploy/gunicorn.conf.py" \
    --bind "$TANKODROM_BIND" --pid "$RUN/gunicorn.pid" >>"$LOG/gunicorn.log" 2>&1 &
  start_workers "$RUN" ""
  wait_for 60 "the web server" curl -sf -o /dev/null "http://$TANKODROM_BIND/healthz"
  if [[ "${TANKODROM_PROXY:-1}" != 0 ]]; then "$ROOT/deploy/proxy.sh" up; fi
}

stop_processes() {
  "$ROOT/deploy/proxy.sh" down
  stop_pidfile "$RUN/gunicorn.pid" gunicorn
  stop_workers "$RUN"
}

first_admin() {
  "$PY" "$ROOT/manage.py" bootstrap_admin
}

case "${1:-run}" in
  run)
    "$ROOT/deploy/setup.sh"
    first_admin
    cleanup() { trap - INT TERM EXIT; say "stopping"; stop_processes; "$ROOT/deploy/stack.sh" down; }
    trap 'cleanup; exit 0' INT TERM   # Ctrl-C: a normal stop
    trap cleanup EXIT                  # a process died: stop the rest, keep the error status
    start_processes
    say "ready: http://$TANKODROM_BIND  (Ctrl-C stops)"
    tail -n 0 -F "$LOG/gunicorn.log" "$LOG/celery.log" "$LOG/celery-uploads.log" "$LOG/celery-outbound.log" &
    tailpid=$!
    # Stay in the foreground until a process dies or the user presses Ctrl-C.
    while pid_alive "$RUN/gunicorn.pid" && workers_alive "$RUN"; do sleep 1; done
    kill "$tailpid" 2>/dev/null || true
    die "a process exited; see $LOG/gunicorn.log and $LOG/celery*.log"
    ;;
  up)
    "$ROOT/deploy/setup.sh"
    first_admin
    if pid_alive "$RUN/gunicorn.pid"; then say "already running"; exit 0; fi
    start_processes
    say "running in the background: http://$TANKODROM_BIND  (logs in $LOG, stop with 'make down')"
    ;;
  down)
    stop_processes
    "$ROOT/deploy/stack.sh" down
    ;;
  *) die "usage: $0 run|up|down" ;;
esac
