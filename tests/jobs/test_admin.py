"""The admin (horizontal/admin.py) in a real browser against a gunicorn instance (issue 13).

Debian's headless Chromium driven by Selenium, a gunicorn instance of testproject and
``manage.py runjob`` processes, all on one PostgreSQL scratch database: log in, open the
runs and a SIGKILLed run's two attempts, pause a job (then ``runjob`` elsewhere refuses
it, exit 0), "run now" at the same moment as a ``runjob`` elsewhere (one run), and a
user without the permissions sees none of the actions.

The browser test is marked ``browser``: it runs on Django 5.2 only (``make test-61``
leaves it out). The in-process tests below it (Django's test client, every version) press
the action the browser test does not: "Re-run the selected failed slots".
"""

from __future__ import annotations

import datetime as dt
import signal
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.chromium import chromium
from tests.support.databases import ScratchDatabase
from tests.support.processes import Instance, manage, spawn, start_gunicorn

TODAY = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT00:00:00Z")
YESTERDAY = (dt.datetime.now(dt.UTC) - dt.timedelta(days=1)).strftime("%Y-%m-%dT00:00:00Z")
ACTIONS = ("run_now", "pause", "resume")

USERS = """
from django.contrib.auth.models import Permission, User
ours = Permission.objects.filter(content_type__app_label="horizontal")
views = list(ours.filter(codename__startswith="view_"))
acts = list(ours.filter(codename__in=["run_job_now", "pause_job", "resume_job", "rerun_jobrun"]))
operator = User.objects.create_user("operator", password="operator-pw-1", is_staff=True)
operator.user_permissions.set(views + acts)
viewer = User.objects.create_user("viewer", password="viewer-pw-1", is_staff=True)
viewer.user_permissions.set(views)
print(len(views), len(acts))
"""


@pytest.fixture
def site() -> Iterator[tuple[ScratchDatabase, Instance]]:
    database = ScratchDatabase("postgresql").create()
    try:
        users = manage("shell", "-c", USERS, env=database.env)
        # view_ of runs, attempts, leases, effects, jobs, trigger nonces and the fleet
        # registry; the four action permissions.
        assert users.stdout.split()[-2:] == ["7", "4"], users.stdout
        web = start_gunicorn(
            {**database.env, "HORIZONTAL_INSTANCE_ID": "web-0", "BILLING_PAY_DELAY": "0.1"}
        )
        try:
            yield database, web
        finally:
            web.stop()
    finally:
        database.drop()


def env(database: ScratchDatabase, node: str, **extra: str) -> dict[str, str]:
    return {**database.env, "HORIZONTAL_INSTANCE_ID": node, **extra}


def submit_and_wait(browser: Any, button: Any) -> None:
    """Click ``button`` and return once the page it submits to has replaced this one (a
    click returns before the navigation, and a loaded machine answers late)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    page = browser.find_element(By.TAG_NAME, "html")
    button.click()
    WebDriverWait(browser, 30).until(expected_conditions.staleness_of(page))
    WebDriverWait(browser, 30).until(
        lambda driver: driver.execute_script("return document.readyState") == "complete"
    )


def log_in(browser: Any, web: Instance, user: str, password: str) -> None:
    from selenium.webdriver.common.by import By

    browser.delete_all_cookies()
    browser.get(f"{web.url}/admin/login/?next=/admin/")
    browser.find_element(By.ID, "id_username").send_keys(user)
    browser.find_element(By.ID, "id_password").send_keys(password)
    submit_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "input[type=submit]"))
    assert "Site administration" in browser.title, browser.page_source[:500]


def action_choices(browser: Any) -> list[str]:
    from selenium.webdriver.common.by import By

    return [
        option.get_attribute("value")
        for option in browser.find_elements(By.CSS_SELECTOR, "select[name=action] option")
    ]


def act(browser: Any, web: Instance, job: str, action: str) -> None:
    """On the Jobs page: tick ``job``, pick ``action``, press Go (returns after the reply)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(f"{web.url}/admin/horizontal/jobcontrol/")
    browser.find_element(By.CSS_SELECTOR, f"input[name=_selected_action][value={job}]").click()
    Select(browser.find_element(By.NAME, "action")).select_by_value(action)
    submit_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "button[name=index]"))


def messages(browser: Any) -> list[str]:
    from selenium.webdriver.common.by import By

    # The admin capitalises a message's first letter (capfirst): ours start with job names.
    found = browser.find_elements(By.CSS_SELECTOR, "ul.messagelist li")
    return [li.text[:1].lower() + li.text[1:] for li in found]


@pytest.mark.multiprocess
@pytest.mark.browser
def test_the_admin_in_a_real_browser_steers_jobs_behind_permissions(
    site: tuple[ScratchDatabase, Instance],
) -> None:
    from selenium.webdriver.common.by import By

    database, web = site
    # A run killed with SIGKILL and re-claimed: the admin must show both attempts.
    manage("seed_demo", "--accounts", "2", "--refunds", "6", env=database.env)
    slow = {"BILLING_PAY_DELAY": "0.2", "HORIZONTAL_LEASE_TTL": "1"}
    victim = spawn(
        "runjob", "refund_balances", "--slot", YESTERDAY, env=env(database, "victim", **slow)
    )
    deadline = time.monotonic() + 60
    while database.query("SELECT count(*) FROM horizontal_effect")[0][0] < 1:
        assert time.monotonic() < deadline and victim.poll() is None
        time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    victim.wait(10)
    time.sleep(1.2)  # its claim expires (ttl 1 s)
    manage("runjob", "refund_balances", "--slot", YESTERDAY, env=env(database, "rescuer"))

    with chromium() as browser:
        log_in(browser, web, "operator", "operator-pw-1")
        browser.get(f"{web.url}/admin/horizontal/jobrun/")
        rows = browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")
        assert len(rows) == 1 and "rescuer" in rows[0].text, rows[0].text
        submit_and_wait(browser, rows[0].find_element(By.CSS_SELECTOR, "th a"))
        attempts = browser.find_elements(By.CSS_SELECTOR, ".inline-group tbody tr.has_original")
        texts = [row.text for row in attempts]
        assert len(texts) == 2, texts
        assert "victim" in texts[0] and "abandoned" in texts[0], texts
        assert "claim expired; taken over by rescuer with token 2" in texts[0], texts
        assert "rescuer" in texts[1] and "succeeded" in texts[1], texts

        # Pause in the admin: runjob on another instance refuses, exit 0.
        act(browser, web, "refund_balances", "pause")
        assert messages(browser) == ["refund_balances: paused"]
        refused = manage("runjob", "refund_balances", env=env(database, "cron-node"))
        assert refused.returncode == 0
        assert "refund_balances: paused by operator (admin) at " in refused.stdout
        assert "; not run. Resume it with `manage.py jobs --resume refund_balances`" in (
            refused.stdout
        )
        assert database.query(
            "SELECT count(*) FROM horizontal_jobrun WHERE slot = %s", (TODAY,)
        ) == [(0,)]
        listing = manage("jobs", env=database.env).stdout
        assert "PAUSED by operator (admin) at " in listing, listing
        act(browser, web, "refund_balances", "resume")
        assert messages(browser) == ["refund_balances: resumed"]

        # "Run now" at the same moment as a runjob on another instance: one run.
        manage("seed_demo", "--accounts", "1", "--refunds", "15", env=database.env)
        runner = spawn(
            "runjob", "refund_balances", env=env(database, "runner", BILLING_PAY_DELAY="0.1")
        )
        act(browser, web, "refund_balances", "run_now")
        shown = messages(browser)
        out, err = runner.communicate(timeout=120)
        assert runner.returncode == 0, out + err
        rows = database.query(
            "SELECT owner, token, attempt, status FROM horizontal_jobrun WHERE slot = %s", (TODAY,)
        )
        assert len(rows) == 1 and rows[0][1:] == (1, 1, "succeeded"), rows
        winner = rows[0][0]
        tried = database.query(
            "SELECT owner, triggered_by, outcome FROM horizontal_jobattempt WHERE slot = %s",
            (TODAY,),
        )
        trigger = "manual" if winner == "web-0" else "schedule"
        assert tried == [(winner, trigger, "succeeded")], (tried, shown, out)
        assert winner in ("web-0", "runner")
        if winner == "web-0":
            assert any("succeeded on web-0 (token 1, attempt 1)" in m for m in shown), shown
            assert "already running on web-0" in out or "already succeeded on web-0" in out, out
        else:
            assert any(
                "already running on runner" in m or "already succeeded on runner" in m
                for m in shown
            ), shown
        paid = database.query("SELECT count(*) FROM horizontal_effect")[0][0]
        assert paid == 6 + 15, "every refund paid once, by one run"

        # Without the permissions: the pages, but none of the actions.
        log_in(browser, web, "viewer", "viewer-pw-1")
        browser.get(f"{web.url}/admin/horizontal/jobcontrol/")
        assert "refund_balances" in browser.page_source
        assert not set(ACTIONS) & set(action_choices(browser)), action_choices(browser)
        browser.get(f"{web.url}/admin/horizontal/jobrun/")
        assert "rerun" not in action_choices(browser)
        log_in(browser, web, "operator", "operator-pw-1")
        browser.get(f"{web.url}/admin/horizontal/jobcontrol/")
        assert set(ACTIONS) <= set(action_choices(browser))


# -- in-process: the re-run action, with and without its permission --------------------


@pytest.fixture
def failed_slot() -> Iterator[str]:
    from horizontal.jobs import Run, job, registry, run_job

    before = dict(registry.jobs)
    outcome: list[str] = []

    def flaky(run: Run) -> None:
        outcome.append(run.slot)
        if len(outcome) == 1:
            raise RuntimeError("the ledger is locked")

    job("admin_flaky", schedule="0 0 * * *")(flaky)
    [failed] = run_job("admin_flaky")
    assert failed.status == "failed" and failed.slot is not None
    yield failed.slot
    registry.jobs.clear()
    registry.jobs.update(before)


def _staff(name: str, *codenames: str) -> Any:
    from django.contrib.auth.models import Permission, User

    user = User.objects.create_user(name, password=f"{name}-pw-1", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="horizontal", codename__in=["view_jobrun", *codenames]
        )
    )
    return user


@pytest.mark.django_db(transaction=True)
def test_rerun_in_the_admin_runs_a_failed_slot_again_through_the_gate(
    client: Any, failed_slot: str
) -> None:
    from horizontal.models import JobAttempt, JobRun

    client.force_login(_staff("rerunner", "rerun_jobrun"))
    run = JobRun.objects.get(job="admin_flaky", slot=failed_slot)
    changelist = "/admin/horizontal/jobrun/"
    assert 'value="rerun"' in client.get(changelist).content.decode()
    response = client.post(
        changelist, {"action": "rerun", "_selected_action": [run.pk]}, follow=True
    )
    shown = [str(m) for m in response.context["messages"]]
    assert any(f"admin_flaky@{failed_slot}: succeeded on " in m for m in shown), shown
    run.refresh_from_db()
    assert (run.status, run.token, run.attempt) == ("succeeded", 2, 2)
    attempts = JobAttempt.objects.filter(job_run=run).order_by("token")
    assert [(a.trigger, a.outcome) for a in attempts] == [
        ("schedule", "failed"),
        ("retry", "succeeded"),
    ]
    # A slot that did not fail is not run again: said, nothing claimed.
    response = client.post(
        changelist, {"action": "rerun", "_selected_action": [run.pk]}, follow=True
    )
    shown = [str(m) for m in response.context["messages"]]
    assert shown == [f"admin_flaky@{failed_slot}: succeeded, not re-run"], shown
    run.refresh_from_db()
    assert run.token == 2


@pytest.mark.django_db(transaction=True)
def test_rerun_is_refused_to_staff_without_its_permission(client: Any, failed_slot: str) -> None:
    from horizontal.models import JobRun

    client.force_login(_staff("looker"))
    run = JobRun.objects.get(job="admin_flaky", slot=failed_slot)
    changelist = "/admin/horizontal/jobrun/"
    page = client.get(changelist)
    assert page.status_code == 200 and 'value="rerun"' not in page.content.decode()
    client.post(changelist, {"action": "rerun", "_selected_action": [run.pk]})
    run.refresh_from_db()
    assert (run.status, run.token) == ("failed", 1)
