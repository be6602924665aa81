<?php
// A PHP front controller as many are written, run by PHP's built-in
// server (php -S 127.0.0.1:PORT -t testdata/php, no router script) for
// agentready serve's upstream tests (cmd/agentready/upstream_test.go)
// behind the proxy. It routes on $_SERVER['PATH_INFO'] to the Flask app's
// routes (testdata/flask/app.py).
//
// How the built-in server derives PATH_INFO: it percent-decodes the
// request's path (%2F too; a malformed escape is left as it is), then
// merges repeated '/' and resolves "." and ".." segments, then walks the
// result from the document root: the first prefix that names a file is
// the script (SCRIPT_NAME) and the rest is PATH_INFO, so
// /index.php/admin/users runs this file with PATH_INFO /admin/users.
// When no prefix names a file and the last segment has no '.', it runs
// the root's index.php with the whole decoded path as PATH_INFO (a path
// whose last segment has a '.' and names no file is answered 404 by the
// server itself). ';' is an ordinary byte, and the method is taken as
// sent (its parser refuses one in lower case).
//
// Every route answers with X-Handler: "<handler> <method>", the handler
// that ran and the method it ran as, and with the request's headers as
// JSON. The paths of docs/enforcement.md's canonical tables that no route
// takes (/p/..., /u/..., /wiki/..., /s, /cart) run the echo handler, whose
// JSON adds the request-target as the app received it:
// $_SERVER['REQUEST_URI'], the target of the request line as sent.

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

function answer(string $name, int $status = 200): void
{
    http_response_code($status);
    header('Content-Type: application/json');
    header('X-Handler: ' . $name . ' ' . $_SERVER['REQUEST_METHOD']);
    echo json_encode(['handler' => $name, 'method' => $_SERVER['REQUEST_METHOD'], 'headers' => getallheaders()],
        JSON_INVALID_UTF8_SUBSTITUTE | JSON_UNESCAPED_SLASHES);
}

function allow(array $methods): bool
{
    if (in_array($_SERVER['REQUEST_METHOD'], $methods, true)) {
        return true;
    }
    http_response_code(405);
    return false;
}

$path = $_SERVER['PATH_INFO'] ?? '/';
$method = $_SERVER['REQUEST_METHOD'];
if (preg_match('#^/admin(/.+)?$#s', $path)) {
    if (allow(METHODS)) {
        answer('admin');
    }
} elseif ($path === '/api/search') {
    if (allow(['GET', 'HEAD'])) {
        answer('product-search');
    }
} elseif (preg_match('#^/api/orders/[^/]+$#', $path)) {
    $handlers = ['GET' => 'order-get', 'HEAD' => 'order-get', 'POST' => 'order-update', 'DELETE' => 'order-cancel'];
    if (allow(array_keys($handlers))) {
        answer($handlers[$method]);
    }
} elseif (str_ends_with($path, '.css') && in_array($method, ['GET', 'HEAD'], true)) {
    answer('css');
} elseif (preg_match('#^/(p|u|wiki)/|^/(s|cart)(;|$)#', $path)) {
    // The catch-all of upstream_canonical_test.go.
    header('Content-Type: application/json');
    header('X-Handler: echo ' . $method);
    echo json_encode(['handler' => 'echo', 'method' => $method, 'headers' => getallheaders(), 'target' => $_SERVER['REQUEST_URI']],
        JSON_INVALID_UTF8_SUBSTITUTE | JSON_UNESCAPED_SLASHES);
} else {
    answer('none', 404);
}
