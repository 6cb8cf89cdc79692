// The web client: sign in, the lobby, a table. Served by the gateway's HTTP port, which it talks
// to over Connect (./api.ts).
import "./style.css";
import { saveSession, session } from "./api";
import { lobbyScreen } from "./lobby";
import { loginScreen } from "./login";
import { inviteFromLink, maxBuyIn } from "./private";
import { tableScreen } from "./table";
import { tournamentsScreen } from "./tournaments";

function lobby(): void {
  if (!session()) {
    loginScreen(lobby);
    return;
  }
  lobbyScreen({
    open: (tableId, join, buyIn, entry) => void tableScreen(tableId, join, buyIn, lobby, entry),
    tournaments: () => tournamentsScreen(lobby),
    signOut: () => {
      saveSession(null);
      loginScreen(lobby);
    },
  });
}

const invited = inviteFromLink(); // opened by a private table's invite link: sign in, then sit
if (invited) {
  const sit = (): void => {
    void maxBuyIn(invited.tableId).then(
      (buyIn) => tableScreen(invited.tableId, true, buyIn, lobby, invited.entry),
      () => lobby(),
    );
  };
  if (session()) sit();
  else loginScreen(sit);
} else lobby();
