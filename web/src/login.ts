// Sign in, register, or play as a guest.
import { gateway, reason, saveSession } from "./api";
import { button, h, mount } from "./dom";

export function loginScreen(done: () => void): void {
  const name = h("input", { id: "username", autocomplete: "username", maxlength: 32 });
  const password = h("input", {
    id: "password",
    type: "password",
    autocomplete: "current-password",
  });
  const guestName = h("input", { id: "guest-name", maxlength: 32, value: "Guest" });
  const status = h("p", { role: "status", class: "status" });

  async function run(call: () => Promise<void>): Promise<void> {
    status.textContent = "…";
    try {
      await call();
      done();
    } catch (error) {
      status.textContent = reason(error);
    }
  }

  async function login(): Promise<void> {
    const reply = await gateway.login({ username: name.value, password: password.value });
    saveSession({
      token: reply.token,
      playerId: reply.player?.playerId ?? "",
      name: reply.player?.displayName ?? name.value,
    });
  }

  mount(
    h(
      "section",
      { class: "login" },
      h("h1", {}, "holdem"),
      h(
        "div",
        { class: "panel" },
        h("h2", {}, "Play now"),
        h("label", { for: "guest-name" }, "Name"),
        guestName,
        button("Play as guest", () =>
          run(async () => {
            const reply = await gateway.guestLogin({ displayName: guestName.value || "Guest" });
            saveSession({
              token: reply.token,
              playerId: reply.player?.playerId ?? "",
              name: reply.player?.displayName ?? guestName.value,
            });
          }),
        ),
      ),
      h(
        "div",
        { class: "panel" },
        h("h2", {}, "Your account"),
        h("label", { for: "username" }, "Username"),
        name,
        h("label", { for: "password" }, "Password"),
        password,
        h(
          "div",
          { class: "row" },
          button("Sign in", () => run(login)),
          button("Register", () =>
            run(async () => {
              await gateway.register({
                username: name.value,
                password: password.value,
                displayName: name.value,
              });
              await login();
            }),
          ),
        ),
      ),
      status,
    ),
  );
}
