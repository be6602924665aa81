// A servlet app on Tomcat 10.1, started by agentready serve's upstream
// tests (cmd/agentready/upstream_test.go) behind the proxy. Its servlets
// are mapped at the Flask app's routes (testdata/flask/app.py) and kept to
// Tomcat's defaults, above all its request-target handling: Tomcat's
// CoyoteAdapter removes each segment's ";..." path parameter, then
// percent-decodes, then resolves "." and ".." segments, and only then
// maps the path to a servlet, so /admin;x/users and /api/..;/admin/users
// reach the admin servlet. Http2Protocol is added to the connector, as
// sites serving HTTP/2 do, so an "Upgrade: h2c" is taken. One default is
// changed, as sites whose clients send them do (Spring Boot's docs show
// how): the connector's relaxedPathChars and relaxedQueryChars admit
// "[ ] | ^" raw in the path and the query, the bytes WHATWG clients send
// unencoded and agentready admits (docs/enforcement.md's canonical-pass
// table has /p/[1], ids[]=1 and q=a|b); by default Tomcat's request-line
// parser answers 400 to them ("Invalid character found in the request
// target"). This changes which bytes the parser takes, not how the path
// is then read.
//
// Every servlet answers with X-Handler: "<handler> <method>", the handler
// that ran and the method it ran as, and with the request's headers as
// JSON. The paths of docs/enforcement.md's canonical tables that no route
// takes (/p/..., /u/..., /wiki/..., /s, /cart) run the echo handler, whose
// JSON adds the request-target as the app received it: getRequestURI()
// (the path as sent: not decoded, its ";..." parameters kept), and "?"
// and getQueryString() (the query as sent) when there is a query.
//
// Usage: java -cp <Tomcat's jars> App.java BASEDIR; it prints "listening
// PORT" once it listens on a free 127.0.0.1 port. It is one source file
// that java compiles in memory at launch (JEP 330): that needs only the
// JRE (Debian's default-jre-headless holds the jdk.compiler module), not
// a JDK's javac nor JSP's compiler, and no build step, so it installs
// fastest; the compile takes about a second.

import java.io.IOException;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.http2.Http2Protocol;

public class App {
    public static void main(String[] args) throws Exception {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(args[0]);
        Connector connector = new Connector();
        connector.setProperty("address", "127.0.0.1");
        connector.setPort(0);
        connector.setProperty("relaxedPathChars", "[]|^");
        connector.setProperty("relaxedQueryChars", "[]|^");
        connector.addUpgradeProtocol(new Http2Protocol());
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);

        Context ctx = tomcat.addContext("", null);
        route(ctx, "admin", new Admin(), "/admin", "/admin/*");
        route(ctx, "search", new Search(), "/api/search");
        route(ctx, "orders", new Orders(), "/api/orders/*");
        route(ctx, "other", new Other(), "/");
        tomcat.start();
        System.out.println("listening " + connector.getLocalPort());
        tomcat.getServer().await();
    }

    static void route(Context ctx, String name, HttpServlet s, String... patterns) {
        Tomcat.addServlet(ctx, name, s);
        for (String p : patterns) {
            ctx.addServletMapping(p, name);
        }
    }

    static void answer(HttpServletRequest req, HttpServletResponse res, String name, int status) throws IOException {
        answer(req, res, name, status, null);
    }

    // answer, with a "target" member when target is not null.
    static void answer(HttpServletRequest req, HttpServletResponse res, String name, int status, String target) throws IOException {
        res.setStatus(status);
        res.setHeader("X-Handler", name + " " + req.getMethod());
        res.setContentType("application/json");
        res.setCharacterEncoding("UTF-8");
        Map<String, String> headers = new TreeMap<>();
        for (String n : Collections.list(req.getHeaderNames())) {
            headers.put(n, String.join(", ", Collections.list(req.getHeaders(n))));
        }
        StringBuilder b = new StringBuilder();
        b.append("{\"handler\":").append(quote(name)).append(",\"method\":").append(quote(req.getMethod())).append(",\"headers\":{");
        String sep = "";
        for (Map.Entry<String, String> e : headers.entrySet()) {
            b.append(sep).append(quote(e.getKey())).append(':').append(quote(e.getValue()));
            sep = ",";
        }
        b.append('}');
        if (target != null) {
            b.append(",\"target\":").append(quote(target));
        }
        b.append('}');
        res.getWriter().write(b.toString());
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    // The admin area answers every method, as a filter in front of it would.
    static class Admin extends HttpServlet {
        @Override
        protected void service(HttpServletRequest req, HttpServletResponse res) throws IOException {
            answer(req, res, "admin", 200);
        }
    }

    // GET (and so HEAD) only, as Flask's route.
    static class Search extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
            answer(req, res, "product-search", 200);
        }
    }

    // /api/orders/<order>: one segment after the servlet path, as Flask's
    // converter takes it.
    static class Orders extends HttpServlet {
        static boolean order(HttpServletRequest req) {
            String p = req.getPathInfo();
            return p != null && p.length() > 1 && p.indexOf('/', 1) < 0;
        }

        void run(HttpServletRequest req, HttpServletResponse res, String name) throws IOException {
            if (order(req)) {
                answer(req, res, name, 200);
            } else {
                answer(req, res, "none", 404);
            }
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
            run(req, res, "order-get");
        }

        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
            run(req, res, "order-update");
        }

        @Override
        protected void doDelete(HttpServletRequest req, HttpServletResponse res) throws IOException {
            run(req, res, "order-cancel");
        }
    }

    // The catch-all of upstream_canonical_test.go's paths.
    static final Pattern ECHO_PATHS = Pattern.compile("^/(p|u|wiki)/|^/(s|cart)(;|$)");

    // The default servlet's place: stylesheets, the echo handler, and 404
    // for the rest.
    static class Other extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
            String p = req.getServletPath() + (req.getPathInfo() == null ? "" : req.getPathInfo());
            if (ECHO_PATHS.matcher(p).find()) {
                String target = req.getRequestURI();
                if (req.getQueryString() != null) {
                    target += "?" + req.getQueryString();
                }
                answer(req, res, "echo", 200, target);
            } else if (p.endsWith(".css")) {
                answer(req, res, "css", 200);
            } else {
                answer(req, res, "none", 404);
            }
        }
    }
}
