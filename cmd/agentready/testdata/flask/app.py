"""A Flask app as many are written, started by agentready serve's upstream
tests (cmd/agentready/upstream_test.go) behind the proxy, on Werkzeug's
own server. Flask's defaults are kept: case-sensitive routes, strict
slashes, and the method upper-cased before routing (Werkzeug), so a
lower-case "delete" runs the DELETE route. Every route answers with
X-Handler: "<handler> <method>", the handler that ran and the method it
ran as, and with the request's headers as JSON. The paths of
docs/enforcement.md's canonical tables that no route takes (/p/..., /u/...,
/wiki/..., /s, /cart) run the echo handler, whose JSON adds the
request-target as the app received it: Werkzeug's environ["RAW_URI"], the
target of the request line as sent (PATH_INFO is decoded).

Usage: python3 app.py; it prints "listening PORT" once it listens on a
free 127.0.0.1 port.
"""

import re
import sys

from flask import Flask, jsonify, request
from werkzeug.serving import make_server

app = Flask(__name__)

METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]


def answer(name, status=200):
    resp = jsonify(handler=name, method=request.method, headers=dict(request.headers))
    resp.status_code = status
    resp.headers["X-Handler"] = name + " " + request.method
    return resp


@app.route("/admin", methods=METHODS)
@app.route("/admin/<path:rest>", methods=METHODS)
def admin(rest=""):
    return answer("admin")


@app.route("/api/search")
def search():
    return answer("product-search")


@app.route("/api/orders/<order>", methods=["GET", "POST", "DELETE"])
def order(order):
    return answer({"GET": "order-get", "HEAD": "order-get", "POST": "order-update", "DELETE": "order-cancel"}[request.method])


@app.route("/api/gateway/cart", methods=["POST"])
def cart_add():
    # As a handler reads its params with request.values, which merges the
    # query and the form (the query first): what the params check must
    # hold wherever it comes from (params_merge_test.go).
    resp = jsonify(handler="cart-add", sku=request.values.get("sku"), qty=request.values.get("qty"))
    resp.headers["X-Handler"] = "cart-add " + request.method
    return resp


# The catch-all of upstream_canonical_test.go.
ECHO_PATHS = re.compile(r"^/(p|u|wiki)/|^/(s|cart)(;|$)")


@app.route("/<path:rest>")
def other(rest):
    if ECHO_PATHS.search(request.path):
        resp = jsonify(handler="echo", method=request.method, headers=dict(request.headers),
                       target=request.environ["RAW_URI"])
        resp.headers["X-Handler"] = "echo " + request.method
        return resp
    if rest.endswith(".css"):
        return answer("css")
    return answer("none", 404)


if __name__ == "__main__":
    server = make_server("127.0.0.1", 0, app, threaded=True)
    print("listening", server.server_port, flush=True)
    server.serve_forever()
