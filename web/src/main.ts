// The web client: sign in, the lobby, a table. Served by the gateway's HTTP port, which it talks
// to over Connect (./api.ts).
import "./style.css";
import { saveSession, session } from "./api";
import { lobbyScreen } from "./lobby";
import { loginScreen } from "./login";
import { tableScreen } from "./table";
import { tournamentsScreen } from "./tournaments";

function lobby(): void {
  if (!session()) {
    loginScreen(lobby);
    return;
  }
  lobbyScreen({
    open: (tableId, join, buyIn) => void tableScreen(tableId, join, buyIn, lobby),
    tournaments: () => tournamentsScreen(lobby),
    signOut: () => {
      saveSession(null);
      loginScreen(lobby);
    },
  });
}

lobby();
