"""The web app: one module per tab (its components, its handlers, its events), `page` puts
them on one page, `view_state` restores the view a link asks for; `static/` holds the
page's CSS and JavaScript."""
