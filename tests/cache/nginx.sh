# nginx.sh — a Bazel HTTP cache on loopback for the tests and benchmarks of the remote cache
# (docs/cache.md "A cache with nginx"): Debian's nginx with its WebDAV module serving /ac/ and
# /cas/ under DIR/data, PUT enabled. Source it, then:
#
#   nginx_start DIR [TOKEN]   starts nginx (a bearer TOKEN, when given, is required); sets
#                             NGINX_PORT, NGINX_PID, NGINX_URL (http://127.0.0.1:PORT/cache)
#   nginx_stop                stops it (SIGTERM, then waits for it)
#
# nginx_start waits until the server answers (a bounded loop, no fixed sleep); it returns 1
# when nginx is not installed (make deps installs nginx-light) or does not come up.

nginx_start() {
    _nd=$1
    _token=${2:-}
    command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || return 1
    _nginx=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
    mkdir -p "$_nd/data/cache/ac" "$_nd/data/cache/cas" "$_nd/tmp"
    NGINX_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    _user=""
    [ "$(id -u)" = 0 ] && _user="user root;"
    _auth=""
    [ -n "$_token" ] && _auth="if (\$http_authorization != \"Bearer $_token\") { return 401; }"
    _temps=""
    for m in proxy fastcgi uwsgi scgi; do
        "$_nginx" -V 2>&1 | grep -q -- "--without-http_${m}_module" ||
            _temps="$_temps ${m}_temp_path $_nd/tmp/$m;"
    done
    cat >"$_nd/nginx.conf" <<CONF
$_user
daemon off;
worker_processes 1;
pid $_nd/nginx.pid;
error_log $_nd/error.log;
events { worker_connections 256; }
http {
    access_log $_nd/access.log;
    client_body_temp_path $_nd/tmp/body;
    $_temps
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $_nd/data;
        client_max_body_size 0;
        location /cache/ {
            $_auth
            dav_methods PUT;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
        }
    }
}
CONF
    "$_nginx" -c "$_nd/nginx.conf" -p "$_nd" -e "$_nd/error.log" &
    NGINX_PID=$!
    NGINX_URL="http://127.0.0.1:$NGINX_PORT/cache"
    _n=0
    while [ "$_n" -lt 400 ]; do
        if python3 -c 'import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1], timeout=1)
except urllib.error.HTTPError:
    pass
except Exception:
    sys.exit(1)' "http://127.0.0.1:$NGINX_PORT/" 2>/dev/null; then
            return 0
        fi
        kill -0 "$NGINX_PID" 2>/dev/null || return 1
        sleep 0.05
        _n=$((_n + 1))
    done
    return 1
}

nginx_stop() {
    [ -n "${NGINX_PID:-}" ] || return 0
    kill "$NGINX_PID" 2>/dev/null
    wait "$NGINX_PID" 2>/dev/null
    NGINX_PID=""
}
