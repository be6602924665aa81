"""A Django app as many are written, started by agentready serve's
upstream tests (cmd/agentready/upstream_test.go) behind the proxy: the
Flask app's routes (testdata/flask/app.py) in a URLconf, with Django's
defaults (CommonMiddleware, APPEND_SLASH). It runs on the server
runserver runs (django.core.servers.basehttp's threaded WSGIServer and
WSGIRequestHandler) without runserver's autoreloader and its second
process: that server is the stdlib's wsgiref, which percent-decodes the
path into PATH_INFO (as Latin-1, %2F included) and resolves no dot
segment; Django routes on that decoded PATH_INFO and upper-cases the
method. Every view answers with X-Handler: "<handler> <method>", the
handler that ran and the method it ran as, and with the request's
headers as JSON.

The paths of docs/enforcement.md's canonical tables that no route takes
(/p/..., /u/..., /wiki/..., /s, /cart) run the echo view, whose JSON adds
the request-target as the app received it. wsgiref puts no raw target in
the environ (PATH_INFO is decoded, QUERY_STRING is as sent), so the
request handler below adds one, RAW_URI (gunicorn's and Werkzeug's name),
from the request line's target as http.server read it; it changes nothing
else of the environ, and so nothing of how Django routes.

Usage: python3 app.py; it prints "listening PORT" once it listens on a
free 127.0.0.1 port.
"""

import re
import sys

import django
from django.conf import settings

settings.configure(
    DEBUG=False,
    SECRET_KEY="agentready-upstream-test",
    ALLOWED_HOSTS=["*"],
    ROOT_URLCONF=__name__,
    MIDDLEWARE=["django.middleware.common.CommonMiddleware"],
    LOGGING_CONFIG=None,
)
django.setup()

from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.http import JsonResponse  # noqa: E402
from django.urls import path  # noqa: E402
from django.views.decorators.http import require_http_methods  # noqa: E402

METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]


def answer(request, name, status=200):
    resp = JsonResponse({"handler": name, "method": request.method, "headers": dict(request.headers)}, status=status)
    resp["X-Handler"] = name + " " + request.method
    return resp


@require_http_methods(METHODS)
def admin(request, rest=""):
    return answer(request, "admin")


@require_http_methods(["GET", "HEAD"])
def search(request):
    return answer(request, "product-search")


@require_http_methods(["GET", "HEAD", "POST", "DELETE"])
def order(request, order):
    return answer(request, {"GET": "order-get", "HEAD": "order-get", "POST": "order-update", "DELETE": "order-cancel"}[request.method])


# The catch-all of upstream_canonical_test.go.
ECHO_PATHS = re.compile(r"^/(p|u|wiki)/|^/(s|cart)(;|$)")


@require_http_methods(["GET", "HEAD"])
def other(request, rest):
    if ECHO_PATHS.search(request.path_info):
        resp = JsonResponse({"handler": "echo", "method": request.method, "headers": dict(request.headers),
                             "target": request.META["RAW_URI"]})
        resp["X-Handler"] = "echo " + request.method
        return resp
    if rest.endswith(".css"):
        return answer(request, "css")
    return answer(request, "none", 404)


urlpatterns = [
    path("admin", admin),
    path("admin/<path:rest>", admin),
    path("api/search", search),
    path("api/orders/<str:order>", order),
    path("<path:rest>", other),
]


class RawURIRequestHandler(WSGIRequestHandler):
    """runserver's request handler, RAW_URI added to the environ."""

    def get_environ(self):
        env = super().get_environ()
        env["RAW_URI"] = self.path
        return env


if __name__ == "__main__":
    server = ThreadedWSGIServer(("127.0.0.1", 0), RawURIRequestHandler)
    server.set_app(get_wsgi_application())
    print("listening", server.server_port, flush=True)
    server.serve_forever()
