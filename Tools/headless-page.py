#!/usr/bin/env python3
"""Loads a page in headless Chromium with scripts off and writes the DOM it built and a
screenshot: the browser the status page's end-to-end test reads the page with, and how
Docs/status-page.png is made.

    headless-page.py URL DOM.html SHOT.png [WIDTH [HEIGHT [SELECTOR]]]

One Chromium launch, driven over the DevTools protocol on a pipe (--remote-debugging-pipe):
scripts are turned off for the page (Emulation.setScriptExecutionDisabled) before it loads.
(Chromium's own --dump-dom and --screenshot print nothing once --blink-settings=scriptEnabled=false
is given: they need the page's script engine.) The DOM is DOM.getOuterHTML of the document;
the screenshot is the whole page at WIDTH (default 1400) CSS pixels, at least HEIGHT (default
0: the page's own height) tall. With SELECTOR (a CSS selector), each element it matches is also
captured on its own, from the same rendering, into SHOT.png's name with `.N.png` for `.png` (N
from 0, in document order), and its box is printed on stdout as one JSON object a line
({"path", "x", "y", "width", "height"}, CSS pixels). CHROMIUM (environment) names the browser (default: chromium).
Nothing leaves 127.0.0.1 unless URL does.
"""
import base64, fcntl, json, os, subprocess, sys, tempfile

url, dom_path, shot_path = sys.argv[1:4]
width = int(sys.argv[4]) if len(sys.argv) > 4 else 1400
min_height = int(sys.argv[5]) if len(sys.argv) > 5 else 0
selector = sys.argv[6] if len(sys.argv) > 6 else None

to_child, from_parent = os.pipe()   # Chromium reads commands on its fd 3
to_parent, from_child = os.pipe()   # and writes answers and events on its fd 4
profile = tempfile.mkdtemp(prefix="headless-page-")

def child_fds():
    # Above the target numbers first: either end may itself be fd 3 or 4.
    a, b = fcntl.fcntl(to_child, fcntl.F_DUPFD, 10), fcntl.fcntl(from_child, fcntl.F_DUPFD, 10)
    os.dup2(a, 3, inheritable=True)
    os.dup2(b, 4, inheritable=True)

browser = subprocess.Popen(
    [os.environ.get("CHROMIUM", "chromium"), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
     "--no-first-run", "--disable-extensions", "--hide-scrollbars", "--mute-audio", "--remote-debugging-pipe",
     "--user-data-dir=" + profile, "about:blank"],
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=False, preexec_fn=child_fds)
os.close(to_child)
os.close(from_child)
out = os.fdopen(from_parent, "wb")
inp = os.fdopen(to_parent, "rb")
buffered = b""
next_id = 0
events = []

def receive():
    global buffered
    while b"\0" not in buffered:
        chunk = inp.read1(65536)
        if not chunk:
            raise SystemExit("chromium closed its DevTools pipe")
        buffered += chunk
    message, buffered = buffered.split(b"\0", 1)
    return json.loads(message)

def send(method, params=None, session=None):
    global next_id
    next_id += 1
    message = {"id": next_id, "method": method, "params": params or {}}
    if session:
        message["sessionId"] = session
    out.write(json.dumps(message).encode() + b"\0")
    out.flush()
    while True:
        m = receive()
        if m.get("id") == next_id:
            if "error" in m:
                raise SystemExit("%s: %s" % (method, m["error"]))
            return m["result"]
        events.append(m)

def wait_for(method, session):
    while True:
        for i, e in enumerate(events):
            if e.get("method") == method and e.get("sessionId") == session:
                del events[i]
                return e
        events.append(receive())

try:
    target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
    s = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    send("Emulation.setScriptExecutionDisabled", {"value": True}, s)
    send("Emulation.setDeviceMetricsOverride", {"width": width, "height": max(min_height, 600), "deviceScaleFactor": 1, "mobile": False}, s)
    send("Page.enable", {}, s)
    send("Page.navigate", {"url": url}, s)
    wait_for("Page.loadEventFired", s)
    root = send("DOM.getDocument", {"depth": -1}, s)["root"]
    with open(dom_path, "w") as f:
        f.write(send("DOM.getOuterHTML", {"nodeId": root["nodeId"]}, s)["outerHTML"])
    size = send("Page.getLayoutMetrics", {}, s)["cssContentSize"]
    height = max(min_height, int(size["height"] + 0.999))
    send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, s)
    shot = send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                           "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}}, s)
    with open(shot_path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    if selector:
        for i, node in enumerate(send("DOM.querySelectorAll", {"nodeId": root["nodeId"], "selector": selector}, s)["nodeIds"]):
            quad = send("DOM.getBoxModel", {"nodeId": node}, s)["model"]["border"]
            box = {"x": min(quad[0::2]), "y": min(quad[1::2])}
            box["width"], box["height"] = max(quad[0::2]) - box["x"], max(quad[1::2]) - box["y"]
            part = send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": dict(box, scale=1)}, s)
            box["path"] = shot_path[:-4] + ".%d.png" % i
            with open(box["path"], "wb") as f:
                f.write(base64.b64decode(part["data"]))
            print(json.dumps(box))
    try:
        send("Browser.close")
    except SystemExit:
        pass
finally:
    try:
        browser.wait(timeout=10)
    except subprocess.TimeoutExpired:
        browser.kill()
        browser.wait()
    subprocess.run(["rm", "-rf", profile])
