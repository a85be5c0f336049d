"""The agent's display name on the user's admin page: an inline added to whichever User admin is
registered (Django's own by default), so an admin can set the name visitors see."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser

from handoff.models import AgentProfile
from handoff.services.agents import display_name_clean


class AgentProfileForm(forms.ModelForm[AgentProfile]):
    class Meta:
        model = AgentProfile
        fields = ["display_name"]

    def clean_display_name(self) -> str:
        # The console's rule (handoff.services.agents): one line, single spaces.
        return display_name_clean(self.cleaned_data.get("display_name") or "")


class AgentProfileInline(admin.StackedInline[AgentProfile, AbstractBaseUser]):
    model = AgentProfile
    form = AgentProfileForm
    can_delete = False
    extra = 1
    max_num = 1
    fields = ["display_name"]
    verbose_name = "name shown to visitors"
    verbose_name_plural = "name shown to visitors"


User = get_user_model()
if admin.site.is_registered(User):  # django.contrib.auth registers it before this app loads
    registered = type(admin.site.get_model_admin(User))
    admin.site.unregister(User)
    admin.site.register(
        User,
        type(
            registered.__name__,
            (registered,),
            {"inlines": [*registered.inlines, AgentProfileInline], "__module__": __name__},
        ),
    )
