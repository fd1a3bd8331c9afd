"""The live view: ``GET /v1/slots/{id}/view``, a page to watch a desktop as a policy works.

The page is static and the same for every slot (it holds no data: the slot id is read from
its own address by its script), so it is served without a token. Every request it makes
carries the token in the ``Authorization`` header, as any API client does; the page asks
for the token in a form, or takes it from the address's fragment (``.../view#token=T``),
which browsers never send to the server (and the page then drops from the address bar), so a
token never appears in a request line or a log. It polls the screenshot, the episode and the
action log about twice a second, shows them with ``textContent`` and blob URLs (never as
HTML), and says plainly when no token was given, when it is refused, and when the slot is
gone (then it stops polling). The badge is the episode's status, and once the episode is
verified after DONE or FAIL its verdict and score (the episode's ``score``); an action the
host refused is in the log, struck through, with the reason.
"""

from __future__ import annotations

import json

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from .. import protocol as P

__all__ = ["PAGE", "POLL_MS", "mount_view"]

#: milliseconds between two polls of the desktop (one poll: screenshot, episode, action log)
POLL_MS = 500

#: what the page may do: fetch from this host, show blob images; nothing else
_CSP = (
    "default-src 'none'; connect-src 'self'; img-src blob:; style-src 'unsafe-inline'; "
    "script-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
)
_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": _CSP,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}

_NAMES = json.dumps(
    {
        "view": P.VIEW_SUFFIX,
        "screenshot": P.SCREENSHOT_SUFFIX + f"?{P.Q_FORMAT}={P.FORMAT_PNG}",
        "episode": P.EPISODE_SUFFIX,
        "actions": P.ACTIONS_SUFFIX,
        "authorization": P.H_AUTHORIZATION,
        "bearer": P.BEARER,
        "frame": P.H_FRAME,
        "pollMs": POLL_MS,
    }
)

_CSS = """
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Ubuntu,sans-serif;
background:#1b1d22;color:#e8e9ec}
header{display:flex;flex-wrap:wrap;align-items:center;gap:10px 18px;padding:10px 18px;
background:#2c001e}
header h1{font-size:16px;margin:0;font-weight:600}
#slot{font-family:ui-monospace,monospace;color:#e6d8e1}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;font-size:12px;font-weight:600;
background:#6b7280;color:#fff}
.badge.valid{background:#1f8a4c}.badge.invalid{background:#c2410c}.badge.pending{background:#b7791f}
.facts{display:flex;gap:14px;font-size:13px;color:#cfd2d8}
.facts b{color:#fff;font-weight:600}
#message{font-size:13px;color:#fbbf24}
main{display:grid;grid-template-columns:minmax(0,1fr) 340px;gap:14px;padding:14px 18px}
#screen-box{background:#000;border-radius:6px;overflow:hidden;line-height:0;
min-height:200px}
#screen{width:100%;height:auto;display:block}
aside{background:#25282f;border-radius:6px;padding:10px 12px;max-height:calc(100vh - 90px);
overflow:auto}
aside h2{font-size:13px;margin:0 0 8px;color:#cfd2d8;font-weight:600}
#log{list-style:none;margin:0;padding:0;font:12px/1.4 ui-monospace,SFMono-Regular,monospace}
#log li{padding:5px 6px;border-bottom:1px solid #353945;white-space:pre-wrap;
word-break:break-word}
#log li .n{color:#8b909c;margin-right:6px}
#log li.control{color:#fbbf24;font-weight:600}
#log li.cut{color:#fca5a5}
#log li.rejected{color:#fca5a5;text-decoration:line-through}
#log li .why{display:block;text-decoration:none;color:#fecaca;font-style:italic}
.badge.solved{background:#1f8a4c}.badge.failed{background:#c2410c}.badge.gone{background:#6b7280}
#screen[hidden],#no-frame[hidden]{display:none}
#no-frame{color:#9ca3af;padding:40px;text-align:center;line-height:1.4}
#token-form{display:flex;gap:8px;align-items:center}
#token-form[hidden]{display:none}
input{font:inherit;padding:3px 8px;border-radius:5px;border:1px solid #555;background:#111;
color:#eee}
button{font:inherit;padding:3px 10px;border-radius:5px;border:0;background:#e95420;color:#fff;
cursor:pointer}
"""

_JS = """
(function(){
  var N=__NAMES__;
  var base=location.pathname.slice(0,location.pathname.length-N.view.length);
  var slot=decodeURIComponent(base.slice(base.lastIndexOf('/')+1));
  var token=null,polls=0,frame=null,logKey=null,url=null;
  var $=function(id){return document.getElementById(id);};
  $('slot').textContent=slot;
  // #token=T (percent-encoded; a '+' is a plus, not a space)
  var given=location.hash.slice(1).split('&').filter(function(p){
    return p.indexOf('token=')===0;})[0];
  if(given!==undefined){token=decodeURIComponent(given.slice(6)).trim()||null;
    history.replaceState(null,'',location.pathname+location.search);}
  var stopped=false;
  function say(text){$('message').textContent=text||'';}
  function askToken(text){$('token-form').hidden=false;say(text);}
  function stop(text){stopped=true;say(text);document.body.dataset.stopped='1';}
  $('token-form').addEventListener('submit',function(ev){ev.preventDefault();
    token=$('token').value.trim()||null;$('token').value='';$('token-form').hidden=true;
    say('');});
  function get(suffix){
    var headers={};
    if(token){headers[N.authorization]=N.bearer+' '+token;}
    return fetch(base+suffix,{headers:headers,cache:'no-store',credentials:'omit'});
  }
  async function trouble(r){
    if(r.status===401){askToken(token?'the host refused the token: enter the token the '+
      'host was started with':'no token was given: enter the token the host was started '+
      'with');return true;}
    if(r.status===409||r.status===404){
      var why='';
      try{why=(await r.json()).error.message;}catch(err){why='';}
      stop((r.status===409?'the slot is gone':'no such slot')+(why?' ('+why+')':'')+
        ': nothing more to show (stopped watching)');
      var st=$('status');st.textContent='gone';st.className='badge gone';return true;}
    if(!r.ok){say('the host answered HTTP '+r.status+'; retrying');return true;}
    return false;
  }
  function verdict(e){  // the status, or once verified the score: what a person asks
    if(e.status==='invalid'){return ['invalid','invalid'];}
    if(e.score!==null&&e.score!==undefined&&(e.last_action==='DONE'||
        e.last_action==='FAIL')){
      var s=Number(e.score).toFixed(2);
      return e.score>=1?['solved · score '+s,'solved']:['failed · score '+s,'failed'];}
    return [e.status,e.status];
  }
  function showEpisode(e){
    var v=verdict(e),s=$('status');s.textContent=v[0];s.className='badge '+v[1];
    $('episode').textContent=e.id+' (#'+e.number+')';
    $('actions').textContent=String(e.actions);
    $('last').textContent=e.last_action===null?'–':e.last_action;
    $('reason').textContent=e.invalid_reason?('invalid: '+e.invalid_reason):'';
  }
  function showLog(data){
    var key=data.episode+':'+data.actions.length;  // one entry per action, refused too
    if(key===logKey){return;}
    logKey=key;
    var ol=$('log');ol.replaceChildren();
    data.actions.forEach(function(a,i){
      var li=document.createElement('li'),n=document.createElement('span');
      n.className='n';n.textContent=(i+1)+'  '+new Date(a.t*1000).toLocaleTimeString();
      li.appendChild(n);li.appendChild(document.createTextNode(a.code));
      if(a.control){li.className='control';}
      if(a.cut){li.className='cut';li.title='stopped: '+a.cut.detail;}
      if(a.error){li.className='rejected';var why=document.createElement('span');
        why.className='why';why.textContent='rejected: '+a.error;li.appendChild(why);}
      ol.appendChild(li);
    });
    ol.lastElementChild&&ol.lastElementChild.scrollIntoView({block:'nearest'});
    $('log-count').textContent=String(data.actions.length);
  }
  async function tick(){
    try{
      var r=await get(N.screenshot);
      if(!(await trouble(r))){
        var f=r.headers.get(N.frame);
        if(f!==frame){
          var blob=await r.blob(),old=url;url=URL.createObjectURL(blob);
          var img=$('screen');img.src=url;img.dataset.frame=f;frame=f;img.hidden=false;
          $('no-frame').hidden=true;
          if(old){setTimeout(function(){URL.revokeObjectURL(old);},1000);}
        }
        var e=await get(N.episode);
        if(!(await trouble(e))){showEpisode(await e.json());
          var a=await get(N.actions);
          if(!(await trouble(a))){showLog(await a.json());say('');}}
      }
    }catch(err){say('the host is unreachable; retrying');}
    polls+=1;document.body.dataset.polls=String(polls);
    if(!stopped){setTimeout(tick,N.pollMs);}
  }
  tick();
})();
"""

PAGE = (
    "<!DOCTYPE html>\n"
    '<html lang="en"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    '<meta name="referrer" content="no-referrer">'
    f"<title>drums-gym live view</title><style>{_CSS}</style></head>"
    '<body data-polls="0"><header><h1>drums-gym live view</h1><span id="slot"></span>'
    '<span id="status" class="badge">connecting</span>'
    '<span class="facts"><span><b>episode</b> <span id="episode">–</span></span>'
    '<span><b>actions</b> <span id="actions">–</span></span>'
    '<span><b>last action</b> <span id="last">–</span></span>'
    '<span id="reason"></span></span>'
    '<form id="token-form" hidden><input id="token" type="password" autocomplete="off" '
    'placeholder="bearer token" aria-label="bearer token"><button>watch</button></form>'
    '<span id="message"></span></header>'
    '<main><div id="screen-box"><img id="screen" alt="the desktop" hidden>'
    '<p id="no-frame">no frame yet</p></div>'
    '<aside><h2>action log (<span id="log-count">0</span>)</h2><ol id="log"></ol></aside>'
    f"</main><script>{_JS.replace('__NAMES__', _NAMES)}</script></body></html>\n"
)


def mount_view(app: FastAPI) -> None:
    """Serve :data:`PAGE` at ``GET /v1/slots/{slot_id}/view`` (no token: it holds no data;
    not part of the API's OpenAPI document)."""

    @app.get(P.slot_route(P.VIEW_SUFFIX), include_in_schema=False)
    async def live_view(slot_id: str) -> HTMLResponse:
        return HTMLResponse(PAGE, headers=_HEADERS)
