// A servlet app on Jetty 9.4, started by agentready serve's upstream
// tests (cmd/agentready/upstream_test.go) behind the proxy: the servlets
// of testdata/tomcat/App.java (javax.servlet here, Jetty 9 predating
// Jakarta EE's rename), mapped at the Flask app's routes
// (testdata/flask/app.py), kept to Jetty's defaults. Jetty 9 removes each
// segment's ";..." path parameter while it percent-decodes the path, then
// resolves "." and ".." segments, before it maps the path to a servlet.
// Unlike Tomcat, its default URI compliance refuses with 400 a dot
// segment it finds ambiguous (encoded, or with a ";..." parameter), but
// it routes an encoded '/' as a '/' (/admin%2Fusers reaches the admin
// servlet) and resolves ".." past an empty segment with a parameter
// (/api/;x/../../admin/users does too). The connector also takes an
// "Upgrade: h2c" (HTTP2CServerConnectionFactory), as sites serving
// HTTP/2 configure it.
//
// Every servlet answers with X-Handler: "<handler> <method>", the handler
// that ran and the method it ran as, and with the request's headers as
// JSON. The paths of docs/enforcement.md's canonical tables that no route
// takes (/p/..., /u/..., /wiki/..., /s, /cart) run the echo handler, whose
// JSON adds the request-target as the app received it: getRequestURI()
// (the path as sent: not decoded, its ";..." parameters kept), and "?"
// and getQueryString() (the query as sent) when there is a query.
//
// Usage: java -cp <Jetty's jars> App.java; it prints "listening PORT"
// once it listens on a free 127.0.0.1 port. Like the Tomcat app it is one
// source file that java compiles in memory at launch (JEP 330), with the
// JRE alone.

import java.io.IOException;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

public class App {
    public static void main(String[] args) throws Exception {
        Server server = new Server();
        HttpConfiguration config = new HttpConfiguration();
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(config), new HTTP2CServerConnectionFactory(config));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);

        ServletContextHandler ctx = new ServletContextHandler();
        ctx.setContextPath("/");
        route(ctx, new Admin(), "/admin", "/admin/*");
        route(ctx, new Search(), "/api/search");
        route(ctx, new Orders(), "/api/orders/*");
        route(ctx, new Other(), "/");
        server.setHandler(ctx);
        server.start();
        System.out.println("listening " + connector.getLocalPort());
        server.join();
    }

    static void route(ServletContextHandler ctx, HttpServlet s, String... patterns) {
        ServletHolder h = new ServletHolder(s);
        for (String p : patterns) {
            ctx.addServlet(h, p);
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
