#!/usr/bin/env python3
"""Drives Debian's headless chromium with selenium for the live-page tests: one JSON command per line on stdin,
one JSON reply per line on stdout ({"ready": true} first, once the browser runs).

  {"op": "open", "url": U}
  {"op": "wait", "css": C, "text": T, "visible": B, "timeout": S}
        until an element matching C whose textContent holds T (and is displayed, when B) is there;
        replies {"ok": true, "elapsed": seconds} or {"ok": false, "error": ..., "page": the page's text}
  {"op": "count", "css": C, "visible": B} replies {"ok": true, "count": how many elements match C now (and are displayed, when B)}
  {"op": "type", "css": C, "text": T}     clear the field C and type T
  {"op": "click", "css": C}
  {"op": "screenshot", "path": P}
  {"op": "hasten-timers", "factor": F}
        from the next page opened on, its setTimeout waits 1/F of what it asks (a page's own retry after
        `Retry-After: 10`, taken in 1 s): the page's logic runs as written, on a faster clock
  {"op": "quit"}
"""
import json
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def start():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,1000"]:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, command):
    start_time = time.monotonic()
    deadline = start_time + command.get("timeout", 5)
    text = command.get("text", "")
    while True:
        for element in driver.find_elements(By.CSS_SELECTOR, command["css"]):
            try:
                if text in (element.get_attribute("textContent") or "") and (not command.get("visible") or element.is_displayed()):
                    return {"ok": True, "elapsed": time.monotonic() - start_time}
            except StaleElementReferenceException:
                pass  # the page re-rendered it between finding and reading: look again
        if time.monotonic() >= deadline:
            return {"ok": False, "error": f"no {command['css']} holding {text!r} within {command.get('timeout', 5)} s"}
        time.sleep(0.02)


def handle(driver, command):
    op = command["op"]
    if op == "open":
        driver.get(command["url"])
    elif op == "wait":
        return wait(driver, command)
    elif op == "count":
        found = driver.find_elements(By.CSS_SELECTOR, command["css"])
        return {"ok": True, "count": len([e for e in found if e.is_displayed()] if command.get("visible") else found)}
    elif op == "type":
        field = driver.find_element(By.CSS_SELECTOR, command["css"])
        field.clear()
        field.send_keys(command["text"])
    elif op == "click":
        driver.find_element(By.CSS_SELECTOR, command["css"]).click()
    elif op == "screenshot":
        driver.save_screenshot(command["path"])
    elif op == "hasten-timers":
        factor = float(command["factor"])
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
            "const pageSetTimeout = window.setTimeout;"
            f"window.setTimeout = (handler, delay, ...rest) => pageSetTimeout(handler, (delay || 0) / {factor}, ...rest);")})
    elif op != "quit":
        return {"ok": False, "error": f"unknown op {op}"}
    return {"ok": True}


def main():
    driver = start()
    print(json.dumps({"ready": True}), flush=True)
    try:
        for line in sys.stdin:
            command = json.loads(line)
            try:
                reply = handle(driver, command)
            except Exception as error:  # reported to the test, which fails with it
                reply = {"ok": False, "error": f"{type(error).__name__}: {error}"}
            if not reply["ok"]:
                reply["page"] = driver.find_element(By.TAG_NAME, "body").text
            print(json.dumps(reply), flush=True)
            if command["op"] == "quit":
                break
    finally:
        driver.quit()


main()
